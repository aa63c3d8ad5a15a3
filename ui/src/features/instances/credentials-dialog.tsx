import OpenInNewIcon from '@mui/icons-material/OpenInNew';
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
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import { CredentialField } from './credential-field.tsx';
import { SecureConnection } from './secure-connection.tsx';
import { CREDENTIAL_TEXTS, type CredentialsPhase, useCredentialsPolling } from './use-credentials-polling.ts';
import { OpenExternalButton } from './with-reason.tsx';

const PHASE_ALERT: Record<
  Exclude<CredentialsPhase, 'loading'>,
  { severity: 'info' | 'success' | 'warning' | 'error'; text: string }
> = {
  preparing: { severity: 'info', text: CREDENTIAL_TEXTS.preparing },
  ready: { severity: 'success', text: CREDENTIAL_TEXTS.ready },
  'not-ready': { severity: 'warning', text: CREDENTIAL_TEXTS.notReady },
  failed: { severity: 'error', text: CREDENTIAL_TEXTS.failed },
};

/** The details in two columns from small screens up, so that the secure connection below stays in view. */
const FIELD_GRID = {
  m: 0,
  display: 'grid',
  gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' },
  columnGap: 3,
  // Each cell draws the line above it; the first row has none.
  '& > div:nth-of-type(2)': { borderTop: { sm: 0 } },
} as const;

function CredentialsBody({
  instance,
  inactive,
  onRetry,
  onClose,
}: {
  instance: Instance;
  inactive: boolean;
  onRetry(): void;
  onClose(): void;
}) {
  const { phase, credentials } = useCredentialsPolling(instance.id);
  const phpmyadmin = credentials?.phpmyadmin;
  const alert = phase === 'loading' ? undefined : PHASE_ALERT[phase];
  const canRetry = phase === 'not-ready' || phase === 'failed';
  return (
    <>
      <DialogContent>
        <Typography color="text.secondary" sx={{ mb: 1.5 }}>
          {instance.name} · {instance.type}
        </Typography>
        {!alert ? (
          <Stack role="status" sx={{ alignItems: 'center', py: 4 }}>
            <CircularProgress aria-label="Loading credentials" />
          </Stack>
        ) : (
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
            sx={{ mb: credentials ? 1 : 0, py: 0 }}
          >
            {alert.text}
          </Alert>
        )}
        {credentials && (
          <Box component="dl" sx={FIELD_GRID}>
            <CredentialField label="Host" value={credentials.host} />
            <CredentialField label="Port" value={String(credentials.port)} />
            <CredentialField label="Database" value={credentials.name} />
            <CredentialField label="Username" value={credentials.user} />
            <CredentialField label="Password" value={credentials.password} secret />
            <CredentialField label="Connection String" value={credentials.connectionString} secret />
          </Box>
        )}
        {credentials && <SecureConnection type={instance.type} credentials={credentials} />}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        {phpmyadmin && (
          <OpenExternalButton
            url={phpmyadmin}
            inactive={inactive}
            icon={<OpenInNewIcon />}
            label="Open phpMyAdmin"
            variant="outlined"
          />
        )}
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </>
  );
}

/**
 * Database Credentials: polls GET /instances/{id}/access while the server prepares
 * them, then shows each detail with a copy button; the password and connection string are masked.
 * A MySQL instance with phpMyAdmin gets a button opening it.
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
  const { inactive } = useCurrentSubscription();
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="md" aria-labelledby="credentials-title">
      <DialogTitle id="credentials-title" sx={{ pb: 1 }}>
        Database Credentials
      </DialogTitle>
      {instance ? (
        <CredentialsBody
          key={`${instance.id}-${round}`}
          instance={instance}
          inactive={inactive}
          onRetry={() => setRound((current) => current + 1)}
          onClose={onClose}
        />
      ) : (
        <DialogActions sx={{ px: 3, pb: 2.5 }}>
          <Button onClick={onClose}>Close</Button>
        </DialogActions>
      )}
    </Dialog>
  );
}
