import { useQuery } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { configKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

/** Public settings (bot-check site key, OAuth flag, plan prices); fixed while the page is open. */
export function usePublicConfigQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: configKeys.public(),
    queryFn: () => unwrap(client.GET('/api/config')),
    staleTime: Number.POSITIVE_INFINITY,
  });
}
