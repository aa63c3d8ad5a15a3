// The Backups tab of an instance (WordPress, MySQL, PostgreSQL, n8n): make, download, restore and
// delete backups, with their progress live from the stream.
import { serverGone } from '@berth/openapi/rules';
import { Alert, Box, Button, Card, CardContent, CircularProgress, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import {
  type Backup,
  useBackupDownloadMutation,
  useBackupsQuery,
  useDeleteBackupMutation,
  useRestoreBackupMutation,
  useRestoreProgress,
} from '../../api/instance-backups.queries.ts';
import type { Instance } from '../../api/instances.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { type BackupAction, BackupActionDialog } from './backup-action-dialog.tsx';
import { BackupRow, formatSize } from './backup-list.tsx';
import { CreateBackupForm } from './create-backup-form.tsx';
import { isDeployed } from './instance-actions.tsx';
import { BACKUP_CREATE_DISABLED } from './instance-catalog.ts';
import { FeatureUnavailable, unavailableReason } from './instance-features.tsx';

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

/**
 * Backups: the list (scheduled and manual), a create form (name, note), download, restore and delete,
 * the last two after a confirmation. An inactive subscription disables creating, restoring and
 * deleting with its message; a download stays possible (it is the customer's data). Where this server
 * offers no backups of the type, the reason stands in their place.
 */
export function BackupsTab({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const notOffered = unavailableReason(instance, 'backups');
  return notOffered ? (
    <FeatureUnavailable reason={notOffered} />
  ) : (
    <OfferedBackups instance={instance} inactive={inactive} />
  );
}

/** The backups of an instance whose type has them on this server. */
function OfferedBackups({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const toast = useToast();
  const platform = usePlatform();
  const deployed = isDeployed(instance);
  // An instance whose server is gone lists its backups too: a restore deploys it again first.
  const backups = useBackupsQuery(
    instance.id,
    deployed || instance.status === 'restoring' || serverGone(instance.status, instance.statusMessage),
  );
  const restore = useRestoreBackupMutation(instance.id);
  const remove = useDeleteBackupMutation(instance.id);
  const download = useBackupDownloadMutation(instance.id);
  const [action, setAction] = useState<BackupAction | null>(null);

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

  // The link works once, for 5 minutes: asked for on the click, then opened (a browser tab, or the system
  // browser on desktop) where the tar downloads.
  const startDownload = (backup: Backup) =>
    download.mutate(backup.id, {
      onSuccess: ({ url }) => platform.openExternal(url),
      onError: (error) => toast.error(errorMessage(error, 'Failed to download backup')),
    });

  return (
    <Stack spacing={3}>
      {inactive && <Alert severity="warning">{BACKUP_CREATE_DISABLED}</Alert>}
      <RestoreState instance={instance} />
      <CreateBackupForm instanceId={instance.id} inactive={inactive} deployed={deployed} />

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
            {backups.data.map((backup) => (
              <BackupRow
                key={backup.id}
                backup={backup}
                restoring={instance.status === 'restoring'}
                inactive={inactive}
                downloading={download.isPending && download.variables === backup.id}
                onDownload={() => startDownload(backup)}
                onAction={(kind) => setAction({ kind, backup })}
              />
            ))}
          </Stack>
        )}
      </Box>

      <BackupActionDialog
        action={action}
        instanceType={instance.type}
        pending={restore.isPending || remove.isPending}
        onCancel={() => setAction(null)}
        onConfirm={confirm}
      />
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
