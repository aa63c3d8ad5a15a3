import AnchorIcon from '@mui/icons-material/Anchor';
import { Box, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';

/** The Berth mark and name, linking to `to`. */
export function BrandLogo({ to }: { to: string }) {
  return (
    <Box
      component={RouterLink}
      to={to}
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 1,
        color: 'text.primary',
        textDecoration: 'none',
      }}
    >
      <Box
        aria-hidden
        sx={{
          width: 32,
          height: 32,
          borderRadius: 2,
          display: 'grid',
          placeItems: 'center',
          color: 'primary.contrastText',
          background: (theme) =>
            `linear-gradient(135deg, ${theme.palette.primary.main}, ${theme.palette.secondary.main})`,
        }}
      >
        <AnchorIcon fontSize="small" />
      </Box>
      <Typography component="span" variant="h6" sx={{ fontWeight: 700, letterSpacing: '-0.01em' }}>
        Berth
      </Typography>
    </Box>
  );
}
