import type { Schemas } from '@berth/openapi';
import { useMutation } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { useApiClient } from './use-api-client.ts';

export function useContactMutation() {
  const client = useApiClient();
  return useMutation<Schemas['Success'], Error, Schemas['ContactRequest']>({
    mutationFn: (body) => unwrap(client.POST('/api/contact/submit', { body })),
  });
}
