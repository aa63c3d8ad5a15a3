import type { InstanceStreamEvent, Schemas } from '@berth/openapi';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { instanceKeys, subscriptionKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

// The backups of an instance and their progress on the live stream (the stream's handler is in
// instances.queries.ts; it hands the `backup` part of an instance event to applyBackupProgress).

export type Backup = Schemas['Backup'];
export type DeletedInstanceBackup = Schemas['DeletedInstanceBackup'];

type BackupProgress = NonNullable<InstanceStreamEvent['backup']>;

/**
 * A backup's progress from the stream: a running or finished backup's row is updated in place (its
 * step, bytes, error), a restore's progress is kept for the Backups tab; a finished one reloads the list.
 */
export function applyBackupProgress(
  queryClient: QueryClient,
  instanceId: string,
  progress: BackupProgress,
): void {
  const { id, status, step, bytes, error } = progress;
  if (status === 'running' || status === 'complete' || status === 'failed') {
    queryClient.setQueryData<Backup[]>(instanceKeys.backups(instanceId), (list) =>
      list?.map((backup) => (backup.id === id ? { ...backup, status, step, bytes, error } : backup)),
    );
  } else {
    queryClient.setQueryData<BackupProgress>(instanceKeys.restore(instanceId), progress);
  }
  if (status !== 'running' && status !== 'restoring') {
    void queryClient.invalidateQueries({ queryKey: instanceKeys.backups(instanceId) });
  }
}

/** The last restore progress of the instance the stream sent (null before any). */
export function useRestoreProgress(id: string): BackupProgress | null {
  const { data } = useQuery<BackupProgress | null>({
    queryKey: instanceKeys.restore(id),
    // Only the stream writes it: there is nothing to fetch.
    queryFn: () => null,
    initialData: null,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return data;
}

/** The backups of an instance (WordPress, MySQL, PostgreSQL, n8n), newest first. */
export function useBackupsQuery(id: string, enabled: boolean) {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.backups(id),
    queryFn: () => unwrap(client.GET('/api/instances/{id}/backups', { params: { path: { id } } })),
    enabled,
  });
}

function useBackupMutation<Variables, Answer>(id: string, run: (variables: Variables) => Promise<Answer>) {
  const queryClient = useQueryClient();
  return useMutation<Answer, Error, Variables>({
    mutationFn: run,
    onSettled: () => queryClient.invalidateQueries({ queryKey: instanceKeys.backups(id) }),
  });
}

export function useCreateBackupMutation(id: string) {
  const client = useApiClient();
  return useBackupMutation(id, (body: Schemas['CreateBackupRequest']) =>
    unwrap(client.POST('/api/instances/{id}/backups/new', { params: { path: { id } }, body })),
  );
}

export function useRestoreBackupMutation(id: string) {
  const client = useApiClient();
  return useBackupMutation(id, (backupId: string) =>
    unwrap(
      client.POST('/api/instances/{id}/backups/{backupId}/restore', {
        params: { path: { id, backupId } },
      }),
    ),
  );
}

export function useDeleteBackupMutation(id: string) {
  const client = useApiClient();
  return useBackupMutation(id, (backupId: string) =>
    unwrap(client.DELETE('/api/instances/{id}/backups/{backupId}', { params: { path: { id, backupId } } })),
  );
}

/** A link that downloads the backup as a tar: it works for 5 minutes, so it is asked for on each click. */
export function useBackupDownloadMutation(id: string) {
  const client = useApiClient();
  return useMutation<Schemas['BackupDownload'], Error, string>({
    mutationFn: (backupId) =>
      unwrap(
        client.POST('/api/instances/{id}/backups/{backupId}/download', {
          params: { path: { id, backupId } },
        }),
      ),
  });
}

/** The backups of the user's deleted instances, kept until their plan's days have passed. */
export function useDeletedBackupsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.deletedBackups(),
    queryFn: async () => (await unwrap(client.GET('/api/deleted-instances/backups'))).backups,
  });
}

/**
 * Deploys a new instance of the backup's type and restores the backup into it; the list of instances
 * (and what the plan has left) reload, the new instance deploying.
 */
export function useRestoreIntoNewMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<
    Schemas['InstanceChange'],
    Error,
    { backupId: string; body: Schemas['RestoreIntoNewInstanceRequest'] }
  >({
    mutationFn: ({ backupId, body }) =>
      unwrap(
        client.POST('/api/deleted-instances/backups/{backupId}/restore', {
          params: { path: { backupId } },
          body,
        }),
      ),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: instanceKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: subscriptionKeys.all });
    },
  });
}

export function useDeleteDeletedBackupMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Schemas['Message'], Error, string>({
    mutationFn: (backupId) =>
      unwrap(client.DELETE('/api/deleted-instances/backups/{backupId}', { params: { path: { backupId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: instanceKeys.deletedBackups() }),
  });
}
