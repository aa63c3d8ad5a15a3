import type { Schemas } from '@berth/openapi';
import { useMutation, useQuery } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { passwordResetKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export function useRequestPasswordResetMutation() {
  const client = useApiClient();
  return useMutation<Schemas['Success'], Error, Schemas['PasswordResetRequest']>({
    mutationFn: (body) => unwrap(client.POST('/api/password-reset/request', { body })),
  });
}

/** Whether the e-mailed token can still be used; asked once per page load. */
export function useVerifyResetTokenQuery(token: string | null) {
  const client = useApiClient();
  return useQuery({
    queryKey: passwordResetKeys.verify(token ?? ''),
    queryFn: () =>
      unwrap(client.GET('/api/password-reset/verify/{token}', { params: { path: { token: token ?? '' } } })),
    enabled: token !== null,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });
}

export function useResetPasswordMutation() {
  const client = useApiClient();
  return useMutation<Schemas['Success'], Error, Schemas['PasswordReset']>({
    mutationFn: (body) => unwrap(client.POST('/api/password-reset/reset', { body })),
  });
}
