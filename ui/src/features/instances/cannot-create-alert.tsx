import { Alert, Button } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { CANNOT_CREATE } from './instance-catalog.ts';

/** Why no instance can be deployed now (the server's reason, else the spec's text), with the way out. */
export function CannotCreateAlert({ reason, spacing }: { reason: string | undefined; spacing: number }) {
  return (
    <Alert
      severity="warning"
      sx={{ mb: spacing }}
      action={
        <Button component={RouterLink} to="/pricing" color="inherit" size="small">
          View plans
        </Button>
      }
    >
      {reason || CANNOT_CREATE}
    </Alert>
  );
}
