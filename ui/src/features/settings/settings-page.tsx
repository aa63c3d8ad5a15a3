import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Container,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { LoadState } from '../../components/load-state.tsx';
import type { HostSettings } from '../../platform/platform.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { normalizeServerUrl, serverUrlError } from './server-url.ts';

function ServerUrlForm({ settings, current }: { settings: HostSettings; current: string }) {
  const [value, setValue] = useState(current);
  const [showError, setShowError] = useState(false);
  const [status, setStatus] = useState<'idle' | 'saving' | 'saved' | 'failed'>('idle');
  const error = serverUrlError(value);
  const unchanged = normalizeServerUrl(value) === current;

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setShowError(true);
    const url = normalizeServerUrl(value);
    if (error || !url) return;
    setStatus('saving');
    try {
      // The host saves it and reloads the app against that server.
      await settings.setServerUrl(url);
      setStatus('saved');
    } catch {
      setStatus('failed');
    }
  };

  return (
    <Stack component="form" noValidate onSubmit={save} spacing={2.5}>
      <TextField
        label="Server URL"
        name="serverUrl"
        type="url"
        value={value}
        onChange={(event) => {
          setValue(event.target.value);
          if (status !== 'saving') setStatus('idle');
        }}
        onBlur={() => setShowError(value !== current)}
        error={showError && error !== undefined}
        helperText={
          (showError && error) ||
          'Where the app signs in and manages your instances, e.g. https://berth.example.com'
        }
        autoComplete="url"
        spellCheck={false}
        fullWidth
      />
      {status === 'saved' && (
        <Alert severity="success">Saved. Berth is reloading with {normalizeServerUrl(value)}…</Alert>
      )}
      {status === 'failed' && (
        <Alert severity="error">The server URL could not be saved. Check the address and try again.</Alert>
      )}
      <Box>
        <Button
          type="submit"
          variant="contained"
          loading={status === 'saving'}
          disabled={unchanged || status === 'saved'}
        >
          Save and Reload
        </Button>
      </Box>
    </Stack>
  );
}

/**
 * Settings of the desktop app, /settings: the Berth server it connects to. Only hosts with settings
 * (desktop) have this screen. Sign-ins are kept per server, so switching back needs no new sign-in.
 */
export function SettingsPage() {
  const { settings } = usePlatform();
  const serverUrl = useQuery({
    queryKey: ['host', 'server-url'],
    queryFn: () => (settings ? settings.getServerUrl() : Promise.resolve('')),
    enabled: settings !== null,
  });

  return (
    <Container maxWidth="md" sx={{ py: { xs: 3, sm: 5 } }}>
      <Box sx={{ mb: 4 }}>
        <Typography variant="h4" component="h1">
          Settings
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }}>
          Settings of this Berth app.
        </Typography>
      </Box>
      <Card component="section" aria-labelledby="server-title">
        <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
          <Typography id="server-title" variant="h6" component="h2" sx={{ mb: 1 }}>
            Server
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 2.5 }}>
            The app reloads after saving. Your sign-in is kept for each server, so you can switch back.
          </Typography>
          {settings && serverUrl.data !== undefined ? (
            <ServerUrlForm settings={settings} current={serverUrl.data} />
          ) : (
            <LoadState
              query={serverUrl}
              loading="Loading the settings…"
              failed="The settings could not be read."
            />
          )}
        </CardContent>
      </Card>
    </Container>
  );
}
