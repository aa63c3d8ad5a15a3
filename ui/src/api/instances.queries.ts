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
import { applyBackupProgress } from './instance-backups.queries.ts';
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
export type InstanceList = Omit<Schemas['InstanceList'], 'instances'> & { instances: Instance[] };
export type InstanceAccess = Omit<Schemas['InstanceAccess'], 'sftp'> &
  Partial<Pick<Schemas['InstanceAccess'], 'sftp'>>;
export type SftpCredentials = NonNullable<Schemas['InstanceAccess']['sftp']>;
export interface InstanceChange {
  instance: Instance;
  message: string;
}
export type InstanceCapability = Schemas['InstanceCapabilities']['types'][number];
export type DatabaseCredentials = NonNullable<InstanceAccess['database']>;

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
const phpOf = (answer: Schemas['InstanceCapabilities']) => answer.php;

/** The PHP versions WordPress sites can run on here (newest first), and the default one. */
export type PhpChoices = Schemas['InstanceCapabilities']['php'];

/** Which types this server can deploy now, and why not the others (unavailable types show the reason). */
export const useInstanceCapabilitiesQuery = () => useCapabilitiesAnswer(typesOf);

/** Which regions this server places instances in, and why not the others. */
export const useRegionsQuery = () => useCapabilitiesAnswer(regionsOf);

/** The PHP versions this server's WordPress sites can run on: the deploy form offers exactly these. */
export const usePhpChoicesQuery = () => useCapabilitiesAnswer(phpOf);

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

/** The live stream's instance handler (see applyInstanceEvent). */
export function useInstanceEventHandler() {
  const queryClient = useQueryClient();
  return useCallback(
    (event: InstanceStreamEvent | null) => applyInstanceEvent(queryClient, event),
    [queryClient],
  );
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
