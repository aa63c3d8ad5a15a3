// The Backups tab of a WordPress site: make, restore and delete backups.
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import RestoreIcon from '@mui/icons-material/Restore';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import {
  type Backup,
  type Instance,
  useBackupsQuery,
  useCreateBackupMutation,
  useDeleteBackupMutation,
  useRestoreBackupMutation,
} from '../../api/instances.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { isDeployed, WithReason } from './instance-actions.tsx';
import {
  BACKUP_CREATE_DISABLED,
  BACKUP_DELETE_DISABLED,
  BACKUP_RESTORE_DISABLED,
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

/**
 * Backups: the list, a create form (name, note), restore and delete, each after a
 * confirmation. An inactive subscription disables all three with its message.
 */
export function BackupsTab({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const toast = useToast();
  const deployed = isDeployed(instance);
  const backups = useBackupsQuery(instance.id, deployed);
  const create = useCreateBackupMutation(instance.id);
  const restore = useRestoreBackupMutation(instance.id);
  const remove = useDeleteBackupMutation(instance.id);
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

  const note = form.field('note');
  return (
    <Stack spacing={3}>
      {inactive && <Alert severity="warning">{BACKUP_CREATE_DISABLED}</Alert>}
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
        {backups.isPending && deployed ? (
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
            {backups.data.map((backup) => (
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
                  <Typography variant="caption" color="text.secondary">
                    {formatDateTime(new Date(backup.createdAt))} · {formatSize(backup.size)}
                  </Typography>
                </Box>
                <Stack direction="row" sx={{ gap: 1 }}>
                  <WithReason reason={inactive ? BACKUP_RESTORE_DISABLED : null}>
                    <Button
                      size="small"
                      startIcon={<RestoreIcon />}
                      disabled={inactive}
                      onClick={() => setAction({ kind: 'restore', backup })}
                    >
                      Restore
                    </Button>
                  </WithReason>
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
                </Stack>
              </Stack>
            ))}
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
              ? `The site's database and files are replaced by those of “${action.backup.name}”.`
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
