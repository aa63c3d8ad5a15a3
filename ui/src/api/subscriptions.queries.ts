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

/** Whether the user may deploy one more instance now, with the reason when not. */
export function useCanCreateInstanceQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: subscriptionKeys.canCreate(),
    queryFn: () => unwrap(client.GET('/api/subscriptions/can-create-instance')),
    staleTime: 0,
  });
}
