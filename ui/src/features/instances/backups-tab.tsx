// The Backups tab of an instance (WordPress, MySQL, PostgreSQL, n8n): make, download, restore and
// delete backups, with their progress live from the stream.
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DownloadIcon from '@mui/icons-material/DownloadOutlined';
import RestoreIcon from '@mui/icons-material/Restore';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  LinearProgress,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import {
  type Backup,
  useBackupDownloadMutation,
  useBackupsQuery,
  useCreateBackupMutation,
  useDeleteBackupMutation,
  useRestoreBackupMutation,
  useRestoreProgress,
} from '../../api/instance-backups.queries.ts';
import type { Instance } from '../../api/instances.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { isDeployed, WithReason } from './instance-actions.tsx';
import {
  BACKUP_CREATE_DISABLED,
  BACKUP_DELETE_DISABLED,
  BACKUP_RESTORE_DISABLED,
  restoreWarning,
} from './instance-catalog.ts';
import {
  BACKUP_NAME_MAX,
  BACKUP_NOTE_MAX,
  type BackupValues,
  validateBackup,
} from './instance-validation.ts';

const INITIAL_BACKUP: BackupValues = { name: '', note: '' };

const SIZE = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
/** A size in bytes as the screens show it. */
export const formatSize = (bytes: number) =>
  bytes >= 1_048_576 ? `${SIZE.format(bytes / 1_048_576)} MB` : `${SIZE.format(bytes / 1024)} KB`;

type BackupAction = { kind: 'restore' | 'delete'; backup: Backup };

const KIND_LABELS: Record<Backup['kind'], string> = { scheduled: 'Scheduled', manual: 'Manual' };

/** Where the restore the stream reports stands, above the list, while the instance reads Restoring. */
function RestoreState({ instance }: { instance: Instance }) {
  const progress = useRestoreProgress(instance.id);
  if (instance.status === 'restoring') {
    const detail = progress?.status === 'restoring' ? progress : null;
    return (
      <Alert severity="info" icon={<CircularProgress size={20} aria-hidden />} role="status">
        Restoring… {detail?.step ?? 'Starting'}
        {detail?.bytes ? ` · ${formatSize(detail.bytes)}` : ''}
      </Alert>
    );
  }
  if (progress?.status === 'restore-failed') {
    return <Alert severity="error">{progress.error ?? 'Failed to restore backup'}</Alert>;
  }
  return null;
}

/** One backup's line under its name: when, how big, how it was made and where it is kept. */
function BackupFacts({ backup }: { backup: Backup }) {
  if (backup.status === 'running') {
    return (
      <Stack spacing={0.5} sx={{ mt: 0.5 }}>
        <LinearProgress aria-label={`Backing up ${backup.name}`} />
        <Typography variant="caption" color="text.secondary" role="status">
          {backup.step ?? 'Starting'}
          {backup.bytes ? ` · ${formatSize(backup.bytes)}` : ''}
        </Typography>
      </Stack>
    );
  }
  return (
    <Stack spacing={0.5} sx={{ mt: 0.5 }}>
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        <Typography variant="caption" color="text.secondary">
          {formatDateTime(new Date(backup.createdAt))}
          {backup.status === 'complete' ? ` · ${formatSize(backup.size)}` : ''}
        </Typography>
        <Chip size="small" variant="outlined" label={KIND_LABELS[backup.kind]} />
        <Chip
          size="small"
          variant="outlined"
          color={backup.offsite ? 'success' : 'default'}
          label={backup.location}
        />
      </Stack>
      {backup.status === 'failed' && (
        <Alert severity="error" sx={{ py: 0 }}>
          {backup.error ?? 'Failed to create backup'}
        </Alert>
      )}
    </Stack>
  );
}

/**
 * Backups: the list (scheduled and manual), a create form (name, note), download, restore and delete,
 * the last two after a confirmation. An inactive subscription disables creating, restoring and
 * deleting with its message; a download stays possible (it is the customer's data).
 */
export function BackupsTab({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const toast = useToast();
  const platform = usePlatform();
  const deployed = isDeployed(instance);
  const backups = useBackupsQuery(instance.id, deployed || instance.status === 'restoring');
  const create = useCreateBackupMutation(instance.id);
  const restore = useRestoreBackupMutation(instance.id);
  const remove = useDeleteBackupMutation(instance.id);
  const download = useBackupDownloadMutation(instance.id);
  const form = useForm(INITIAL_BACKUP, validateBackup);
  const [action, setAction] = useState<BackupAction | null>(null);
  const notRunning = deployed ? null : 'Available once the instance is running';

  const submit = form.handleSubmit((values) => {
    if (inactive) {
      toast.error(BACKUP_CREATE_DISABLED);
      return;
    }
    create.mutate(
      { name: values.name.trim(), note: values.note.trim() },
      {
        onSuccess: ({ message }) => {
          toast.success(message || 'Backup creation started');
          form.reset();
        },
        onError: (error) => {
          form.showServerErrors(fieldErrorsOf(error));
          toast.error(errorMessage(error, 'Failed to create backup'));
        },
      },
    );
  });

  const confirm = () => {
    if (!action) return;
    const { kind, backup } = action;
    const mutation = kind === 'restore' ? restore : remove;
    mutation.mutate(backup.id, {
      onSuccess: (answer) =>
        toast.success(answer.message || (kind === 'restore' ? 'Restore initiated' : 'Backup deleted')),
      onError: (error) =>
        toast.error(
          errorMessage(error, kind === 'restore' ? 'Failed to restore backup' : 'Failed to delete backup'),
        ),
      onSettled: () => setAction(null),
    });
  };

  // The link works for 5 minutes: asked for on the click, then opened (a browser tab, or the system
  // browser on desktop) where the tar downloads.
  const startDownload = (backup: Backup) =>
    download.mutate(backup.id, {
      onSuccess: ({ url }) => platform.openExternal(url),
      onError: (error) => toast.error(errorMessage(error, 'Failed to download backup')),
    });

  const note = form.field('note');
  return (
    <Stack spacing={3}>
      {inactive && <Alert severity="warning">{BACKUP_CREATE_DISABLED}</Alert>}
      <RestoreState instance={instance} />
      <Stack component="form" noValidate onSubmit={submit} spacing={2} aria-label="Create backup">
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
          Create Backup
        </Typography>
        <TextField
          {...form.field('name')}
          label="Backup Name"
          required
          size="small"
          slotProps={{ htmlInput: { maxLength: BACKUP_NAME_MAX + 20 } }}
        />
        <TextField
          {...note}
          label="Note (optional)"
          size="small"
          multiline
          minRows={2}
          helperText={note.helperText ?? `${form.values.note.length}/${BACKUP_NOTE_MAX}`}
        />
        <Box>
          <WithReason reason={inactive ? BACKUP_CREATE_DISABLED : notRunning}>
            <Button
              type="submit"
              variant="contained"
              loading={create.isPending}
              disabled={inactive || !deployed}
            >
              Create Backup
            </Button>
          </WithReason>
        </Box>
      </Stack>

      <Box>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700, mb: 1 }}>
          Your Backups
        </Typography>
        {backups.isPending && backups.isFetching ? (
          <Stack role="status" sx={{ alignItems: 'center', py: 3 }}>
            <CircularProgress aria-label="Loading backups" />
          </Stack>
        ) : backups.isError ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => void backups.refetch()}>
                Retry
              </Button>
            }
          >
            {errorMessage(backups.error, 'Failed to load backups')}
          </Alert>
        ) : !backups.data?.length ? (
          <Typography color="text.secondary">No backups yet.</Typography>
        ) : (
          <Stack component="ul" aria-label="Backups" sx={{ listStyle: 'none', m: 0, p: 0 }}>
            {backups.data.map((backup) => {
              const complete = backup.status === 'complete';
              const busy = instance.status === 'restoring' ? 'A restore is in progress' : null;
              return (
                <Stack
                  component="li"
                  key={backup.id}
                  aria-label={backup.name}
                  direction={{ xs: 'column', sm: 'row' }}
                  sx={{ gap: 1, py: 1.5, borderTop: 1, borderColor: 'divider', alignItems: { sm: 'center' } }}
                >
                  <Box sx={{ flex: 1, minWidth: 0 }}>
                    <Typography sx={{ fontWeight: 600, wordBreak: 'break-word' }}>{backup.name}</Typography>
                    {backup.note && (
                      <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-word' }}>
                        {backup.note}
                      </Typography>
                    )}
                    <BackupFacts backup={backup} />
                  </Box>
                  <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
                    {complete && (
                      <Button
                        size="small"
                        startIcon={<DownloadIcon />}
                        loading={download.isPending && download.variables === backup.id}
                        onClick={() => startDownload(backup)}
                      >
                        Download
                      </Button>
                    )}
                    {complete && (
                      <WithReason reason={inactive ? BACKUP_RESTORE_DISABLED : busy}>
                        <Button
                          size="small"
                          startIcon={<RestoreIcon />}
                          disabled={inactive || busy !== null}
                          onClick={() => setAction({ kind: 'restore', backup })}
                        >
                          Restore
                        </Button>
                      </WithReason>
                    )}
                    {backup.status !== 'running' && (
                      <WithReason reason={inactive ? BACKUP_DELETE_DISABLED : null}>
                        <Button
                          size="small"
                          color="error"
                          startIcon={<DeleteOutlineIcon />}
                          disabled={inactive}
                          onClick={() => setAction({ kind: 'delete', backup })}
                        >
                          Delete
                        </Button>
                      </WithReason>
                    )}
                  </Stack>
                </Stack>
              );
            })}
          </Stack>
        )}
      </Box>

      <Dialog open={action !== null} onClose={() => setAction(null)} aria-labelledby="backup-action-title">
        <DialogTitle id="backup-action-title">
          {action?.kind === 'restore' ? 'Restore backup?' : 'Delete backup?'}
        </DialogTitle>
        <DialogContent>
          <DialogContentText>
            {action?.kind === 'restore'
              ? restoreWarning(instance.type, action.backup.name)
              : `“${action?.backup.name ?? ''}” is deleted for good.`}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button color="inherit" onClick={() => setAction(null)}>
            Cancel
          </Button>
          <Button
            variant="contained"
            color={action?.kind === 'delete' ? 'error' : 'primary'}
            loading={restore.isPending || remove.isPending}
            onClick={confirm}
          >
            {action?.kind === 'restore' ? 'Restore' : 'Delete'}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}

/** The Backups card of a database or n8n instance (a WordPress site has the tab in its card). */
export function BackupsCard({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  return (
    <Card component="section" aria-labelledby="backups-title">
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography id="backups-title" variant="h6" component="h2" sx={{ mb: 2 }}>
          Backups
        </Typography>
        <BackupsTab instance={instance} inactive={inactive} />
      </CardContent>
    </Card>
  );
}
