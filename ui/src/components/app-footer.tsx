import { Box, Container, Link, Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import type { AppLink } from './nav-link.ts';

export interface FooterGroup {
  title: string;
  links: readonly AppLink[];
}

/** A small footer: what Berth is, and the link groups that have pages. */
export function AppFooter({ groups }: { groups: readonly FooterGroup[] }) {
  const visible = groups.filter((group) => group.links.length > 0);
  return (
    <Box component="footer" sx={{ borderTop: 1, borderColor: 'divider', mt: 'auto', py: 3 }}>
      <Container maxWidth="lg">
        {visible.length > 0 && (
          <Stack direction="row" spacing={6} sx={{ mb: 3, flexWrap: 'wrap', rowGap: 2 }}>
            {visible.map((group) => (
              <Box key={group.title} component="nav" aria-label={group.title}>
                <Typography variant="overline" color="text.secondary">
                  {group.title}
                </Typography>
                <Stack spacing={0.5}>
                  {group.links.map((link) => (
                    <Link
                      key={link.to}
                      component={RouterLink}
                      to={link.to}
                      underline="hover"
                      color="text.primary"
                    >
                      {link.label}
                    </Link>
                  ))}
                </Stack>
              </Box>
            ))}
          </Stack>
        )}
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          spacing={1}
          sx={{ justifyContent: 'space-between', color: 'text.secondary' }}
        >
          <Typography variant="body2">Hosting for applications and databases.</Typography>
          <Typography variant="body2">© {new Date().getFullYear()} Berth</Typography>
        </Stack>
      </Container>
    </Box>
  );
}
