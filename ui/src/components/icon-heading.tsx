import { Box, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/**
 * A page's title (its h1) and one line saying what the page is for, beside the page's icon in a
 * primary-coloured tile (hidden on phones). Used by the Admin Panel and Get Help pages.
 */
export function IconHeading({ icon, title, subtitle }: { icon: ReactNode; title: string; subtitle: string }) {
  return (
    <Stack direction="row" sx={{ gap: 2, alignItems: 'center', mb: 3 }}>
      <Box
        aria-hidden
        sx={{
          display: { xs: 'none', sm: 'flex' },
          alignItems: 'center',
          justifyContent: 'center',
          width: 48,
          height: 48,
          borderRadius: 2,
          bgcolor: 'primary.main',
          color: 'primary.contrastText',
        }}
      >
        {icon}
      </Box>
      <Box>
        <Typography variant="h4" component="h1">
          {title}
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }}>
          {subtitle}
        </Typography>
      </Box>
    </Stack>
  );
}
