import { AppBar, Box, Button, Stack, Toolbar } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { BrandLogo } from './brand-logo.tsx';
import type { AppLink } from './nav-link.ts';
import { ThemeToggle } from './theme-toggle.tsx';

/** The signed-out bar (spec customer-area §2.3); `links` are the public pages that exist. */
export function PublicBar({ links }: { links: readonly AppLink[] }) {
  return (
    <AppBar position="sticky">
      <Toolbar sx={{ gap: 1 }}>
        <BrandLogo to="/" />
        {links.length > 0 && (
          <Box
            component="nav"
            aria-label="Main"
            sx={{ display: { xs: 'none', md: 'flex' }, gap: 0.5, ml: 4 }}
          >
            {links.map((link) => (
              <Button key={link.to} component={RouterLink} to={link.to} color="inherit">
                {link.label}
              </Button>
            ))}
          </Box>
        )}
        <Stack
          direction="row"
          spacing={{ xs: 0.5, sm: 1 }}
          sx={{ ml: 'auto', alignItems: 'center', '& .MuiButton-root': { whiteSpace: 'nowrap' } }}
        >
          <ThemeToggle />
          <Button component={RouterLink} to="/login" color="inherit">
            Sign In
          </Button>
          <Button component={RouterLink} to="/register" variant="contained">
            Get Started
          </Button>
        </Stack>
      </Toolbar>
    </AppBar>
  );
}
