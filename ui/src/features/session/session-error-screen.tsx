import CloudOffIcon from '@mui/icons-material/CloudOff';
import { Box, Button, Card, CardContent, Stack, Typography } from '@mui/material';
import { useSession } from './use-session.ts';

/** The stored token is kept when the profile cannot be loaded (other than 401); the user can retry. */
export function SessionErrorScreen() {
  const { refresh, logout, isFetching } = useSession();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', p: 2 }}>
      <Card sx={{ maxWidth: 440, width: '100%' }}>
        <CardContent sx={{ p: 4, textAlign: 'center' }}>
          <CloudOffIcon color="warning" sx={{ fontSize: 48, mb: 1 }} />
          <Typography variant="h5" component="h1" gutterBottom>
            We couldn't load your account
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            The server could not be reached or answered with an error. Check your connection and try again.
          </Typography>
          <Stack direction="row" spacing={1.5} sx={{ justifyContent: 'center' }}>
            <Button variant="contained" onClick={() => void refresh()} loading={isFetching}>
              Retry
            </Button>
            <Button variant="outlined" color="inherit" onClick={() => void logout()}>
              Logout
            </Button>
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
}
