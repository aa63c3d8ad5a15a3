import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import type { Backup } from '../../api/instance-backups.queries.ts';
import type { Instance } from '../../api/instances.queries.ts';
import { restoreWarning } from './instance-catalog.ts';

export type BackupActionKind = 'restore' | 'delete';
export type BackupAction = { kind: BackupActionKind; backup: Backup };

/** The confirmation before a backup is restored (what the restore replaces) or deleted for good. */
export function BackupActionDialog({
  action,
  instanceType,
  pending,
  onCancel,
  onConfirm,
}: {
  action: BackupAction | null;
  instanceType: Instance['type'];
  pending: boolean;
  onCancel(): void;
  onConfirm(): void;
}) {
  return (
    <Dialog open={action !== null} onClose={onCancel} aria-labelledby="backup-action-title">
      <DialogTitle id="backup-action-title">
        {action?.kind === 'restore' ? 'Restore backup?' : 'Delete backup?'}
      </DialogTitle>
      <DialogContent>
        <DialogContentText>
          {action?.kind === 'restore'
            ? restoreWarning(instanceType, action.backup.name)
            : `“${action?.backup.name ?? ''}” is deleted for good.`}
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button color="inherit" onClick={onCancel}>
          Cancel
        </Button>
        <Button
          variant="contained"
          color={action?.kind === 'delete' ? 'error' : 'primary'}
          loading={pending}
          onClick={onConfirm}
        >
          {action?.kind === 'restore' ? 'Restore' : 'Delete'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
