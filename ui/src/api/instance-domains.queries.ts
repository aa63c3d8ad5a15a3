import type { Schemas } from '@berth/openapi';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { unwrap } from './api-error.ts';
import type { InstanceChange } from './instances.queries.ts';
import { instanceKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

// The custom domain of a WordPress site and its certificate.

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
