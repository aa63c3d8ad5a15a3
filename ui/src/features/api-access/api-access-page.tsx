import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Container,
  Link,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { errorMessage } from '../../api/api-error.ts';
import {
  type ApiKeyInfo,
  useApiKeysQuery,
  useDeleteApiKeyMutation,
  useNewApiKeyMutation,
  useUpdateApiKeyMutation,
} from '../../api/api-keys.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useSession } from '../session/use-session.ts';
import { ApiKeyField } from './api-key-field.tsx';
import { hasApiAccess } from './has-api-access.ts';
import { type KeptApiKey, useKeptApiKey } from './use-kept-api-key.ts';

/** Said when the desktop keychain refused to store the key (it is still shown here) or to forget it. */
const KEEP_FAILED = 'The key could not be kept in this computer’s keychain: copy it now.';
const FORGET_FAILED = 'The old key could not be removed from this computer’s keychain.';

/** Copy feedback 2 s, key-metadata saved message 1.8 s. */
export const COPIED_MS = 2000;
export const SAVED_MS = 1800;

/** A flag that is true for `ms` after `raise()`. */
function useFlash(ms: number): [boolean, () => void] {
  const [until, setUntil] = useState(0);
  useEffect(() => {
    if (until === 0) return;
    const timer = setTimeout(() => setUntil(0), Math.max(0, until - Date.now()));
    return () => clearTimeout(timer);
  }, [until]);
  return [until !== 0, () => setUntil(Date.now() + ms)];
}

function UpgradePrompt() {
  return (
    <Alert
      severity="info"
      action={
        <Button component={RouterLink} to="/pricing" color="inherit" size="small">
          Upgrade to Pro
        </Button>
      }
    >
      API access requires a Pro plan subscription.
    </Alert>
  );
}

/**
 * The key. On the web it is shown in full only right after it was made (only its hash is kept); in the
 * desktop app it is kept in the OS keychain at once and shown from there later, hidden until revealed.
 * Regenerate and Delete ask first; both take the old key out of the keychain.
 */
function KeyCard({
  current,
  newKey,
  kept,
}: {
  current: ApiKeyInfo | undefined;
  newKey: ReturnType<typeof useNewApiKeyMutation>;
  kept: KeptApiKey;
}) {
  const toast = useToast();
  const remove = useDeleteApiKeyMutation();
  const made = newKey.data?.apiKey ?? null;
  const full = kept.key ?? made;
  // Shown right after it was made; a key read back from the keychain stays hidden until revealed.
  const [visible, setVisible] = useState(false);
  const [copied, flashCopied] = useFlash(COPIED_MS);
  const [confirming, setConfirming] = useState<'regenerate' | 'delete' | null>(null);

  const keep = (apiKey: string) => kept.keep(apiKey).catch(() => toast.error(KEEP_FAILED));

  const make = (which: 'generate' | 'regenerate') =>
    newKey.mutate(which, {
      onSuccess: ({ apiKey }) => {
        setVisible(true);
        setConfirming(null);
        void keep(apiKey);
      },
      onError: () => toast.error('Failed to generate API key'),
    });

  const deleteKey = () => {
    if (!current) return;
    remove.mutate(current.id, {
      onSuccess: () => {
        setConfirming(null);
        newKey.reset();
        void kept.forget().catch(() => toast.error(FORGET_FAILED));
        toast.success('API key deleted');
      },
      onError: (error) => toast.error(errorMessage(error, 'Failed to delete API key')),
    });
  };

  const copy = async () => {
    if (!full) {
      toast.error('No API key to copy');
      return;
    }
    try {
      await navigator.clipboard.writeText(full);
      flashCopied();
    } catch {
      toast.error('Failed to copy API key to clipboard');
    }
  };

  const shown = full ?? (current ? current.masked : '');
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Your API key
        </Typography>
        {!current ? (
          <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
            <Typography color="text.secondary">
              You have no API key yet. Generate one to call the Berth API from your own code.
            </Typography>
            <Button variant="contained" onClick={() => make('generate')} loading={newKey.isPending}>
              Generate API Key
            </Button>
          </Stack>
        ) : (
          <Stack spacing={2}>
            <ApiKeyField
              shown={shown}
              full={full}
              visible={visible}
              onToggle={() => setVisible((v) => !v)}
              keeps={kept.keeps}
            />
            <Stack direction="row" spacing={1.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
              <Button variant="outlined" startIcon={<ContentCopyIcon />} onClick={copy}>
                {copied ? 'Copied!' : 'Copy'}
              </Button>
              <Button color="warning" variant="outlined" onClick={() => setConfirming('regenerate')}>
                Regenerate
              </Button>
              <Button
                color="error"
                variant="outlined"
                startIcon={<DeleteOutlineIcon />}
                onClick={() => setConfirming('delete')}
              >
                Delete
              </Button>
            </Stack>
            <Typography variant="body2" color="text.secondary">
              Created {new Date(current.createdAt).toLocaleString()} ·{' '}
              {current.lastUsedAt
                ? `last used ${new Date(current.lastUsedAt).toLocaleString()}`
                : 'never used'}
            </Typography>
          </Stack>
        )}
      </CardContent>
      <ConfirmDialog
        open={confirming === 'regenerate'}
        title="Regenerate API key?"
        text="Your current key stops working at once: scripts that use it get 401 until they have the new key."
        confirmLabel="Regenerate"
        destructive
        pending={newKey.isPending}
        onConfirm={() => make('regenerate')}
        onClose={() => setConfirming(null)}
      />
      <ConfirmDialog
        open={confirming === 'delete'}
        title="Delete API key?"
        text="The key stops working at once: scripts that use it get 401. You can generate a new key afterwards."
        confirmLabel="Delete"
        destructive
        pending={remove.isPending}
        onConfirm={deleteKey}
        onClose={() => setConfirming(null)}
      />
    </Card>
  );
}

function KeyDetails({ current }: { current: ApiKeyInfo }) {
  const update = useUpdateApiKeyMutation();
  const [label, setLabel] = useState(current.label);
  const [notes, setNotes] = useState(current.notes);
  const [saved, flashSaved] = useFlash(SAVED_MS);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
          Key details
        </Typography>
        <Box
          component="form"
          onSubmit={(event) => {
            event.preventDefault();
            update.mutate({ id: current.id, label, notes }, { onSuccess: flashSaved });
          }}
        >
          <Stack spacing={2}>
            <TextField
              label="Key label"
              value={label}
              onChange={(event) => setLabel(event.target.value)}
              slotProps={{ htmlInput: { maxLength: 100 } }}
              fullWidth
            />
            <TextField
              label="Notes"
              value={notes}
              onChange={(event) => setNotes(event.target.value)}
              slotProps={{ htmlInput: { maxLength: 1000 } }}
              multiline
              minRows={2}
              fullWidth
            />
            {update.error && <Alert severity="error">{update.error.message}</Alert>}
            <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
              <Button type="submit" variant="contained" loading={update.isPending}>
                Save
              </Button>
              <Typography role="status" color="success.main">
                {saved ? 'Key details saved' : ''}
              </Typography>
            </Stack>
          </Stack>
        </Box>
      </CardContent>
    </Card>
  );
}

/**
 * API Access, /api-access: generate, show/hide, copy and regenerate the key, its
 * label and notes; non-Pro users see an upgrade prompt. The key itself is in the page's memory only
 * until it is left (the server keeps only its hash).
 */
export function ApiAccessPage() {
  const { user } = useSession();
  const pro = hasApiAccess(user);
  const keys = useApiKeysQuery(user !== null);
  // Its last answer holds the whole key, shown until the page is left.
  const newKey = useNewApiKeyMutation();
  const current = keys.data?.[0];
  const kept = useKeptApiKey(user?.id ?? '', current, pro && keys.isSuccess);

  return (
    <Container maxWidth="md" sx={{ py: { xs: 3, md: 5 } }}>
      <Typography variant="h4" component="h1" sx={{ mb: 1 }}>
        API Access
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        Deploy and manage instances from your own code with an API key. Read the{' '}
        <Link component={RouterLink} to="/api/docs">
          API documentation
        </Link>{' '}
        or the{' '}
        <Link component={RouterLink} to="/api-reference">
          full API reference
        </Link>
        .
      </Typography>
      {!pro ? (
        <Stack spacing={3}>
          <UpgradePrompt />
          {current && (
            <Typography color="text.secondary">
              Your key {current.masked} works again as soon as your Pro plan is active.
            </Typography>
          )}
        </Stack>
      ) : (
        <Stack spacing={3}>
          <LoadState query={keys} loading="Loading your API key..." failed="Failed to load your API key" />
          {keys.isSuccess && <KeyCard current={current} newKey={newKey} kept={kept} />}
          {current && <KeyDetails key={current.id} current={current} />}
        </Stack>
      )}
    </Container>
  );
}
