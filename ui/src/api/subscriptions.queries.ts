import { useQuery } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { subscriptionKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export function useSubscriptionStatusQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: subscriptionKeys.status(),
    queryFn: () => unwrap(client.GET('/api/subscriptions/status')),
  });
}
