import type {
  ApiClient,
  ChangeInstancePasswordRequest,
  DeployInstanceRequest,
  InstanceStreamEvent,
  Schemas,
  UpdateInstanceRequest,
} from '@berth/openapi';
import {
  keepPreviousData,
  type QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useCallback } from 'react';
import { ApiRequestError, unwrap } from './api-error.ts';
import {
  authKeys,
  type InstanceListParams,
  instanceKeys,
  pageQuery,
  subscriptionKeys,
} from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export type { InstanceStreamEvent };

// customDomain is optional here so that older answers (and database fixtures) without it still fit.
export type Instance = Omit<Schemas['Instance'], 'customDomain'> &
  Partial<Pick<Schemas['Instance'], 'customDomain'>>;
export type CustomDomain = NonNullable<Schemas['CustomDomain']>;
export type SslState = CustomDomain['ssl']['status'];
export type DomainVerification = CustomDomain['verification'];
export type Backup = Schemas['Backup'];
export type InstanceList = Omit<Schemas['InstanceList'], 'instances'> & { instances: Instance[] };
export type InstanceAccess = Omit<Schemas['InstanceAccess'], 'sftp'> &
  Partial<Pick<Schemas['InstanceAccess'], 'sftp'>>;
export type SftpCredentials = NonNullable<Schemas['InstanceAccess']['sftp']>;
export interface InstanceChange {
  instance: Instance;
  message: string;
}
export type InstanceCapability = Schemas['InstanceCapabilities']['types'][number];
export type DatabaseCredentials = InstanceAccess['database'];

/** 24 per page, 3 on the dashboard, 1000 while a client-side filter runs. */
export const INSTANCE_PAGE_SIZE = 24;
export const DASHBOARD_PAGE_SIZE = 3;
export const FILTER_PAGE_SIZE = 1000;

export function useInstancesQuery(params: InstanceListParams) {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.list(params),
    queryFn: () =>
      unwrap(
        client.GET('/api/instances', {
          params: { query: pageQuery(params) },
        }),
      ),
    // A new page or search term keeps the previous list on screen until its answer arrives.
    placeholderData: keepPreviousData,
  });
}

export function useInstanceQuery(id: string) {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.detail(id),
    queryFn: async () =>
      (await unwrap(client.GET('/api/instances/{id}', { params: { path: { id } } }))).instance,
  });
}

export type RegionAvailability = Schemas['InstanceCapabilities']['regions'][number];

/** GET /instances/capabilities, whole: types and regions (each hook below selects its part). */
function useCapabilitiesAnswer<T>(select: (answer: Schemas['InstanceCapabilities']) => T) {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.capabilities(),
    queryFn: async () => unwrap(client.GET('/api/instances/capabilities')),
    select,
    staleTime: 60_000,
  });
}

const typesOf = (answer: Schemas['InstanceCapabilities']) => answer.types;
const regionsOf = (answer: Schemas['InstanceCapabilities']) => answer.regions;

/** Which types this server can deploy now, and why not the others (unavailable types show the reason). */
export const useInstanceCapabilitiesQuery = () => useCapabilitiesAnswer(typesOf);

/** Which regions this server places instances in, and why not the others. */
export const useRegionsQuery = () => useCapabilitiesAnswer(regionsOf);

/** Credentials of a database instance: ready (200), or still being prepared (202). */
export type AccessAnswer = { ready: true; access: InstanceAccess } | { ready: false };

/** GET /instances/{id}/access, keeping the difference between 200 and 202; other answers throw. */
export async function fetchInstanceAccess(client: ApiClient, id: string): Promise<AccessAnswer> {
  const result = await client.GET('/api/instances/{id}/access', { params: { path: { id } } });
  if (result.response.status === 202) return { ready: false };
  const data = await unwrap(Promise.resolve(result));
  return 'database' in data ? { ready: true, access: data } : { ready: false };
}

/** Whether an access answer holds credentials a client can log in with. */
export function usableCredentials(access: InstanceAccess | null | undefined): DatabaseCredentials | null {
  const database = access?.database;
  return database?.host && database.user && database.password ? database : null;
}

/**
 * The credentials of a deployed database instance (null while they are being prepared), for the
 * dashboard's Connection Details. Reloaded when the instance's status changes on the live stream.
 */
export function useInstanceAccessQuery(id: string | undefined, enabled: boolean) {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.access(id ?? ''),
    queryFn: async () => {
      const answer = await fetchInstanceAccess(client, id ?? '');
      return answer.ready ? answer.access : null;
    },
    enabled: enabled && id !== undefined,
    retry: false,
  });
}

/** Everything an instance count feeds: the lists, the plan usage in the profile, and can-create. */
function invalidateUsage(queryClient: QueryClient) {
  void queryClient.invalidateQueries({ queryKey: instanceKeys.lists() });
  void queryClient.invalidateQueries({ queryKey: authKeys.profile() });
  void queryClient.invalidateQueries({ queryKey: subscriptionKeys.all });
}

/**
 * POST /instances/deploy: 202 with the new instance (deploying). On a 403 (plan limit, inactive
 * subscription) the subscription is refreshed.
 */
export function useDeployInstanceMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<InstanceChange, Error, DeployInstanceRequest>({
    mutationFn: (body) => unwrap(client.POST('/api/instances/deploy', { body })),
    onSuccess: ({ instance }) => {
      queryClient.setQueryData(instanceKeys.detail(instance.id), instance);
      invalidateUsage(queryClient);
    },
    onError: (error) => {
      if (error instanceof ApiRequestError && error.status === 403) {
        // The profile carries the subscription (top bar, account menu); the status and can-create
        // queries reload too, also those of screens not on view.
        void queryClient.invalidateQueries({ queryKey: subscriptionKeys.all, refetchType: 'all' });
        void queryClient.invalidateQueries({ queryKey: authKeys.profile() });
      }
    },
  });
}

export function useUpdateInstanceMutation(id: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<InstanceChange, Error, UpdateInstanceRequest>({
    mutationFn: (body) => unwrap(client.PUT('/api/instances/{id}', { params: { path: { id } }, body })),
    onSuccess: ({ instance }) => {
      queryClient.setQueryData(instanceKeys.detail(id), instance);
      void queryClient.invalidateQueries({ queryKey: instanceKeys.lists() });
    },
  });
}

/** DELETE /instances/{id}: 202, the instance is `deleting` until the stream says `deleted`. */
export function useDeleteInstanceMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<InstanceChange, Error, Pick<Instance, 'id'>>({
    mutationFn: ({ id }) => unwrap(client.DELETE('/api/instances/{id}', { params: { path: { id } } })),
    onSuccess: ({ instance }) => {
      queryClient.setQueryData(instanceKeys.detail(instance.id), instance);
      invalidateUsage(queryClient);
    },
  });
}

/** POST /instances/{id}/password: 200 once applied, 202 while it is still being applied. */
export function useChangeInstancePasswordMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Schemas['Message'], Error, { id: string } & ChangeInstancePasswordRequest>({
    mutationFn: ({ id, ...body }) =>
      unwrap(client.POST('/api/instances/{id}/password', { params: { path: { id } }, body })),
    onSuccess: (_answer, { id }) => queryClient.invalidateQueries({ queryKey: instanceKeys.access(id) }),
  });
}

/**
 * Applies an `event: instance` of the live stream to every cached instance query at once (lists,
 * detail), then reloads them to pick up the rest of the change; `deleted` removes the instance.
 * `null` means changes may have been missed (resync, reconnect): everything is reloaded.
 */
function applyInstanceEvent(queryClient: QueryClient, event: InstanceStreamEvent | null): void {
  if (event === null) {
    void queryClient.invalidateQueries({ queryKey: instanceKeys.all });
    return;
  }
  const { id, status, statusMessage } = event;
  if (event.backup) applyBackupProgress(queryClient, id, event.backup);
  queryClient.setQueriesData<InstanceList>({ queryKey: instanceKeys.lists() }, (list) => {
    if (!list) return list;
    if (status === 'deleted') {
      const instances = list.instances.filter((instance) => instance.id !== id);
      return instances.length === list.instances.length
        ? list
        : { ...list, instances, total: Math.max(0, list.total - 1) };
    }
    return {
      ...list,
      instances: list.instances.map((instance) =>
        instance.id === id ? { ...instance, status, statusMessage } : instance,
      ),
    };
  });
  if (status !== 'deleted') {
    queryClient.setQueryData<Instance>(instanceKeys.detail(id), (instance) =>
      instance ? { ...instance, status, statusMessage } : instance,
    );
  }
  void queryClient.invalidateQueries({ queryKey: instanceKeys.lists() });
  void queryClient.invalidateQueries({ queryKey: instanceKeys.detail(id) });
  void queryClient.invalidateQueries({ queryKey: instanceKeys.access(id) });
  if (status === 'deleted') {
    void queryClient.invalidateQueries({ queryKey: authKeys.profile() });
    void queryClient.invalidateQueries({ queryKey: subscriptionKeys.all });
  }
}

type BackupProgress = NonNullable<InstanceStreamEvent['backup']>;

/**
 * A backup's progress from the stream: a running or finished backup's row is updated in place (its
 * step, bytes, error), a restore's progress is kept for the Backups tab; a finished one reloads the list.
 */
function applyBackupProgress(queryClient: QueryClient, instanceId: string, progress: BackupProgress): void {
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

/** The live stream's instance handler (see applyInstanceEvent). */
export function useInstanceEventHandler() {
  const queryClient = useQueryClient();
  return useCallback(
    (event: InstanceStreamEvent | null) => applyInstanceEvent(queryClient, event),
    [queryClient],
  );
}

/** The instance answer of the domain routes: the detail is replaced, the lists reload. */
function useApplyInstanceChange(id: string) {
  const queryClient = useQueryClient();
  return useCallback(
    ({ instance }: InstanceChange) => {
      queryClient.setQueryData(instanceKeys.detail(id), instance);
      void queryClient.invalidateQueries({ queryKey: instanceKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: instanceKeys.ssl(id) });
    },
    [queryClient, id],
  );
}

/** POST /instances/{id}/domain: attaches (or replaces) the custom domain of a WordPress site. */
export function useAddDomainMutation(id: string) {
  const client = useApiClient();
  const apply = useApplyInstanceChange(id);
  return useMutation<InstanceChange, Error, string>({
    mutationFn: (domain) =>
      unwrap(client.POST('/api/instances/{id}/domain', { params: { path: { id } }, body: { domain } })),
    onSuccess: apply,
  });
}

/**
 * POST /instances/{id}/domain/verify: looks up the domain's TXT record now; attached when it proves
 * ownership, else still pending with what was found.
 */
export function useVerifyDomainMutation(id: string) {
  const client = useApiClient();
  const apply = useApplyInstanceChange(id);
  return useMutation<InstanceChange, Error, void>({
    mutationFn: () => unwrap(client.POST('/api/instances/{id}/domain/verify', { params: { path: { id } } })),
    onSuccess: apply,
  });
}

/** DELETE /instances/{id}/domain: the site answers on its temporary URL again. */
export function useRemoveDomainMutation(id: string) {
  const client = useApiClient();
  const apply = useApplyInstanceChange(id);
  return useMutation<InstanceChange, Error, void>({
    mutationFn: () => unwrap(client.DELETE('/api/instances/{id}/domain', { params: { path: { id } } })),
    onSuccess: apply,
  });
}

export type SslResult = Schemas['SslResult'];

/** GET /instances/{id}/ssl on demand (a TLS handshake now): the detail reloads with the new status. */
export function useCheckSslMutation(id: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<SslResult, Error, void>({
    mutationFn: () => unwrap(client.GET('/api/instances/{id}/ssl', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: instanceKeys.detail(id) }),
  });
}

/** POST /instances/{id}/ssl: discards the certificate and has a new one issued. */
export function useRequestSslMutation(id: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<SslResult, Error, void>({
    mutationFn: () => unwrap(client.POST('/api/instances/{id}/ssl', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: instanceKeys.detail(id) }),
  });
}

/** How much of its storage (its own disk) a WordPress site uses. */
export function useSiteStorageQuery(id: string, enabled: boolean) {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.storage(id),
    queryFn: () => unwrap(client.GET('/api/instances/{id}/storage', { params: { path: { id } } })),
    enabled,
  });
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
