import { Box, CircularProgress, Typography } from '@mui/material';

/** Centered spinner shown while the session loads. */
export function LoadingScreen() {
  return (
    <Box
      role="status"
      aria-live="polite"
      sx={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 2,
      }}
    >
      <CircularProgress aria-hidden />
      <Typography color="text.secondary">Loading...</Typography>
    </Box>
  );
}
