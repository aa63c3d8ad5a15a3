import type { AuthResult, LoginRequest, RegisterRequest } from '@berth/openapi';
import { useMutation } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { useApiClient } from './use-api-client.ts';

export function useLoginMutation() {
  const client = useApiClient();
  return useMutation<AuthResult, Error, LoginRequest>({
    mutationFn: (body) => unwrap(client.POST('/api/auth/login', { body })),
  });
}

export function useRegisterMutation() {
  const client = useApiClient();
  return useMutation<AuthResult, Error, RegisterRequest>({
    mutationFn: (body) => unwrap(client.POST('/api/auth/register', { body })),
  });
}
