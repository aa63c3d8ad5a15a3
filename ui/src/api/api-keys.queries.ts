import type { Schemas } from '@berth/openapi';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { apiKeyKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export type ApiKeyInfo = Schemas['ApiKeyInfo'];
export type NewApiKey = Schemas['NewApiKey'];

/** The user's API key (at most one), without its secret. */
export function useApiKeysQuery(enabled = true) {
  const client = useApiClient();
  return useQuery({
    queryKey: apiKeyKeys.list(),
    queryFn: async () => (await unwrap(client.GET('/api/keys'))).keys,
    enabled,
  });
}

/** Generate (first key) or regenerate (replaces the key: the old one stops at once). */
export function useNewApiKeyMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<NewApiKey, Error, 'generate' | 'regenerate'>({
    mutationFn: (which) =>
      unwrap(which === 'generate' ? client.POST('/api/keys/generate') : client.POST('/api/keys/regenerate')),
    onSuccess: (result) => queryClient.setQueryData(apiKeyKeys.list(), [result.key]),
  });
}

export function useUpdateApiKeyMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Schemas['ApiKeyChange'], Error, { id: string; label: string; notes: string }>({
    mutationFn: ({ id, label, notes }) =>
      unwrap(client.PUT('/api/keys/{id}', { params: { path: { id } }, body: { label, notes } })),
    onSuccess: (result) => queryClient.setQueryData(apiKeyKeys.list(), [result.key]),
  });
}

/** DELETE /api/keys/{id}: the key stops working at once; a new one may be generated after. */
export function useDeleteApiKeyMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<unknown, Error, string>({
    mutationFn: (id) => unwrap(client.DELETE('/api/keys/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.setQueryData(apiKeyKeys.list(), []),
  });
}
