import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import RestoreIcon from '@mui/icons-material/Restore';
import {
  Box,
  Button,
  Card,
  Chip,
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
import { errorMessage } from '../../api/api-error.ts';
import {
  type DeletedInstanceBackup,
  useDeleteDeletedBackupMutation,
  useDeletedBackupsQuery,
  useRestoreIntoNewMutation,
} from '../../api/instance-backups.queries.ts';
import { useRegionsQuery } from '../../api/instances.queries.ts';
import { useCanCreateInstanceQuery } from '../../api/subscriptions.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { formatSize } from './backup-list.tsx';
import {
  BACKUP_DELETE_DISABLED,
  BACKUP_RESTORE_DISABLED,
  CANNOT_CREATE,
  type RegionId,
  regionLabel,
  regionOffered,
} from './instance-catalog.ts';
import { NAME_MAX } from './instance-validation.ts';
import { RegionPicker } from './region-picker.tsx';
import { WithReason } from './with-reason.tsx';

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

type Action = { kind: 'restore' | 'delete'; backup: DeletedInstanceBackup };

/**
 * The instance list's "Backups of deleted instances" (shown when there are any): what is kept of each
 * deleted instance until its plan's days have passed, with "Restore into a new instance" (a new instance
 * of the same type, deployed and then given the backup's data) and Delete.
 */
export function DeletedInstanceBackups({ inactive }: { inactive: boolean }) {
  const query = useDeletedBackupsQuery();
  const canCreate = useCanCreateInstanceQuery();
  const [action, setAction] = useState<Action | null>(null);
  const backups = query.data ?? [];
  if (backups.length === 0) return null;
  const blocked = canCreate.data?.canCreate === false ? (canCreate.data.reason ?? CANNOT_CREATE) : null;

  return (
    <Box component="section" aria-labelledby="deleted-backups-title" sx={{ mt: 5 }}>
      <Typography id="deleted-backups-title" variant="h6" component="h2">
        Backups of deleted instances
      </Typography>
      <Typography color="text.secondary" variant="body2" sx={{ mt: 0.5, mb: 2 }}>
        A deleted instance’s backups are kept until their plan’s days have passed, then removed. Restore one
        into a new instance of the same type.
      </Typography>
      <Card variant="outlined" sx={{ px: 2 }}>
        <Stack
          component="ul"
          aria-label="Backups of deleted instances"
          sx={{ m: 0, p: 0, listStyle: 'none' }}
        >
          {backups.map((backup, index) => (
            <DeletedBackupRow
              key={backup.id}
              backup={backup}
              first={index === 0}
              restoreReason={
                inactive ? BACKUP_RESTORE_DISABLED : backup.restorable ? blocked : (backup.reason ?? null)
              }
              deleteReason={inactive ? BACKUP_DELETE_DISABLED : null}
              onAction={(kind) => setAction({ kind, backup })}
            />
          ))}
        </Stack>
      </Card>
      {action?.kind === 'restore' && (
        <RestoreIntoNewDialog backup={action.backup} onClose={() => setAction(null)} />
      )}
      {action?.kind === 'delete' && <DeleteDialog backup={action.backup} onClose={() => setAction(null)} />}
    </Box>
  );
}

function DeletedBackupRow({
  backup,
  first,
  restoreReason,
  deleteReason,
  onAction,
}: {
  backup: DeletedInstanceBackup;
  first: boolean;
  restoreReason: string | null;
  deleteReason: string | null;
  onAction(kind: Action['kind']): void;
}) {
  return (
    <Stack
      component="li"
      aria-label={`${backup.instance.name}: ${backup.name}`}
      direction={{ xs: 'column', sm: 'row' }}
      sx={{ gap: 1, py: 1.5, borderTop: first ? 0 : 1, borderColor: 'divider', alignItems: { sm: 'center' } }}
    >
      <Box sx={{ flex: 1, minWidth: 0 }}>
        <Typography sx={{ fontWeight: 600, wordBreak: 'break-word' }}>{backup.name}</Typography>
        <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-word' }}>
          {backup.instance.type} instance “{backup.instance.name}”, deleted{' '}
          {DATE.format(new Date(backup.instance.deletedAt))}
        </Typography>
        <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', alignItems: 'center', mt: 0.5 }}>
          <Typography variant="caption" color="text.secondary">
            {formatDateTime(new Date(backup.createdAt))} · {formatSize(backup.size)} · Kept until{' '}
            {DATE.format(new Date(backup.keptUntil))}
          </Typography>
          <Chip
            size="small"
            variant="outlined"
            color={backup.offsite ? 'success' : 'default'}
            label={backup.location}
          />
        </Stack>
      </Box>
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
        <WithReason reason={restoreReason}>
          <Button
            size="small"
            startIcon={<RestoreIcon />}
            disabled={restoreReason !== null}
            onClick={() => onAction('restore')}
          >
            Restore into a new instance
          </Button>
        </WithReason>
        <WithReason reason={deleteReason}>
          <Button
            size="small"
            color="error"
            startIcon={<DeleteOutlineIcon />}
            disabled={deleteReason !== null}
            onClick={() => onAction('delete')}
          >
            Delete
          </Button>
        </WithReason>
      </Stack>
    </Stack>
  );
}

/** Names the new instance and picks its region (the deleted one's by default), then restores into it. */
function RestoreIntoNewDialog({ backup, onClose }: { backup: DeletedInstanceBackup; onClose(): void }) {
  const restore = useRestoreIntoNewMutation();
  const regions = useRegionsQuery();
  const toast = useToast();
  const [name, setName] = useState(backup.instance.name);
  const [chosenRegion, setRegion] = useState<string | null>(null);
  const region =
    chosenRegion ??
    (regionOffered(regions.data, backup.instance.region)
      ? backup.instance.region
      : (regions.data?.find((r) => r.available)?.id ?? backup.instance.region));
  const nameError =
    name.trim() === '' ? 'Instance name is required' : name.trim().length > NAME_MAX ? 'Name too long' : null;

  const confirm = () => {
    if (nameError) return;
    restore.mutate(
      { backupId: backup.id, body: { name: name.trim(), region: region as RegionId } },
      {
        onSuccess: ({ message }) => {
          toast.success(message || 'Restore into a new instance initiated');
          onClose();
        },
        onError: (error) => toast.error(errorMessage(error, 'Failed to restore backup')),
      },
    );
  };

  return (
    <Dialog
      open
      onClose={() => !restore.isPending && onClose()}
      aria-labelledby="restore-new-title"
      fullWidth
    >
      <DialogTitle id="restore-new-title">Restore into a new instance?</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          A new {backup.instance.type} instance is deployed in {regionLabel(region)}, sized like “
          {backup.instance.name}” was, and “{backup.name}” is restored into it. It counts toward your plan
          like any instance.
        </DialogContentText>
        <Stack spacing={2.5}>
          <TextField
            label="Instance Name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={nameError !== null}
            helperText={nameError ?? ' '}
            required
            autoFocus
          />
          <RegionPicker regions={regions.data} value={region} onChange={setRegion} />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={onClose} disabled={restore.isPending}>
          Cancel
        </Button>
        <Button
          variant="contained"
          onClick={confirm}
          loading={restore.isPending}
          disabled={nameError !== null}
        >
          Restore
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function DeleteDialog({ backup, onClose }: { backup: DeletedInstanceBackup; onClose(): void }) {
  const remove = useDeleteDeletedBackupMutation();
  const toast = useToast();
  const confirm = () =>
    remove.mutate(backup.id, {
      onSuccess: () => {
        toast.success('Backup deleted');
        onClose();
      },
      onError: (error) => toast.error(errorMessage(error, 'Failed to delete backup')),
    });
  return (
    <Dialog open onClose={() => !remove.isPending && onClose()} aria-labelledby="delete-deleted-backup-title">
      <DialogTitle id="delete-deleted-backup-title">Delete backup?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          “{backup.name}” of the deleted instance “{backup.instance.name}” is deleted for good.
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={onClose} disabled={remove.isPending}>
          Cancel
        </Button>
        <Button variant="contained" color="error" onClick={confirm} loading={remove.isPending}>
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
