// The backup list of the Backups tab: one row per backup with its facts and actions.
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DownloadIcon from '@mui/icons-material/DownloadOutlined';
import RestoreIcon from '@mui/icons-material/Restore';
import { Alert, Box, Button, Chip, LinearProgress, Stack, Typography } from '@mui/material';
import type { Backup } from '../../api/instance-backups.queries.ts';
import { formatDateTime } from '../subscription/standing.ts';
import type { BackupActionKind } from './backup-action-dialog.tsx';
import { BACKUP_DELETE_DISABLED, BACKUP_RESTORE_DISABLED } from './instance-catalog.ts';
import { WithReason } from './with-reason.tsx';

const SIZE = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
/** A size in bytes as the screens show it. */
export const formatSize = (bytes: number) =>
  bytes >= 1_048_576 ? `${SIZE.format(bytes / 1_048_576)} MB` : `${SIZE.format(bytes / 1024)} KB`;

const KIND_LABELS: Record<Backup['kind'], string> = { scheduled: 'Scheduled', manual: 'Manual' };

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
 * One backup of the list: its name, note and facts, then Download and Restore (a complete backup) and
 * Delete (any but a running one). Restoring and deleting are off while the subscription is inactive,
 * restoring also while a restore runs.
 */
export function BackupRow({
  backup,
  restoring,
  inactive,
  downloading,
  onDownload,
  onAction,
}: {
  backup: Backup;
  /** The instance is being restored now. */
  restoring: boolean;
  inactive: boolean;
  downloading: boolean;
  onDownload(): void;
  onAction(kind: BackupActionKind): void;
}) {
  const complete = backup.status === 'complete';
  const busy = restoring ? 'A restore is in progress' : null;
  return (
    <Stack
      component="li"
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
          <Button size="small" startIcon={<DownloadIcon />} loading={downloading} onClick={onDownload}>
            Download
          </Button>
        )}
        {complete && (
          <WithReason reason={inactive ? BACKUP_RESTORE_DISABLED : busy}>
            <Button
              size="small"
              startIcon={<RestoreIcon />}
              disabled={inactive || busy !== null}
              onClick={() => onAction('restore')}
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
              onClick={() => onAction('delete')}
            >
              Delete
            </Button>
          </WithReason>
        )}
      </Stack>
    </Stack>
  );
}
