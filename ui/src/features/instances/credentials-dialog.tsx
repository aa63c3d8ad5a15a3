import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import type { Instance } from '../../api/instances.queries.ts';
import { CredentialField } from './credential-field.tsx';
import { SecureConnection } from './secure-connection.tsx';
import { CREDENTIAL_TEXTS, type CredentialsPhase, useCredentialsPolling } from './use-credentials-polling.ts';

const PHASE_ALERT: Record<
  Exclude<CredentialsPhase, 'loading'>,
  { severity: 'info' | 'success' | 'warning' | 'error'; text: string }
> = {
  preparing: { severity: 'info', text: CREDENTIAL_TEXTS.preparing },
  ready: { severity: 'success', text: CREDENTIAL_TEXTS.ready },
  'not-ready': { severity: 'warning', text: CREDENTIAL_TEXTS.notReady },
  failed: { severity: 'error', text: CREDENTIAL_TEXTS.failed },
};

function CredentialsBody({ instance, onRetry }: { instance: Instance; onRetry(): void }) {
  const { phase, credentials } = useCredentialsPolling(instance.id);
  if (phase === 'loading') {
    return (
      <Stack role="status" sx={{ alignItems: 'center', py: 4 }}>
        <CircularProgress aria-label="Loading credentials" />
      </Stack>
    );
  }
  const alert = PHASE_ALERT[phase];
  const canRetry = phase === 'not-ready' || phase === 'failed';
  return (
    <>
      <Alert
        severity={alert.severity}
        role="status"
        icon={phase === 'preparing' ? <CircularProgress size={18} aria-hidden /> : undefined}
        action={
          canRetry ? (
            <Button color="inherit" size="small" onClick={onRetry}>
              Try again
            </Button>
          ) : undefined
        }
        sx={{ mb: credentials ? 2 : 0 }}
      >
        {alert.text}
      </Alert>
      {credentials && (
        <Box component="dl" sx={{ m: 0 }}>
          <CredentialField label="Host" value={credentials.host} />
          <CredentialField label="Port" value={String(credentials.port)} />
          <CredentialField label="Database" value={credentials.name} />
          <CredentialField label="Username" value={credentials.user} />
          <CredentialField label="Password" value={credentials.password} secret />
          <CredentialField label="Connection String" value={credentials.connectionString} secret />
        </Box>
      )}
      {credentials && <SecureConnection type={instance.type} credentials={credentials} />}
    </>
  );
}

/**
 * Database Credentials: polls GET /instances/{id}/access while the server prepares
 * them, then shows each detail with a copy button; the password and connection string are masked.
 */
export function CredentialsDialog({
  instance,
  open,
  onClose,
}: {
  instance: Instance | undefined;
  open: boolean;
  onClose(): void;
}) {
  // A new key starts the polling again.
  const [round, setRound] = useState(0);
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="credentials-title">
      <DialogTitle id="credentials-title">Database Credentials</DialogTitle>
      {instance && (
        <DialogContent>
          <Typography color="text.secondary" sx={{ mb: 2 }}>
            {instance.name} · {instance.type}
          </Typography>
          <CredentialsBody
            key={`${instance.id}-${round}`}
            instance={instance}
            onRetry={() => setRound((current) => current + 1)}
          />
        </DialogContent>
      )}
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
