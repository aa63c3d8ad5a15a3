import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { authKeys, subscriptionKeys } from '../../api/query-keys.ts';

/** When the trial runs out while the page is open, reload the profile and subscription once. */
export function useRefreshAtTrialEnd(trialEndsAt: string | null): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!trialEndsAt) return;
    const wait = Date.parse(trialEndsAt) - Date.now();
    if (!(wait > 0) || wait > 2 ** 31 - 1) return;
    const id = setTimeout(() => {
      void queryClient.invalidateQueries({ queryKey: authKeys.profile() });
      void queryClient.invalidateQueries({ queryKey: subscriptionKeys.status() });
    }, wait + 1_000);
    return () => clearTimeout(id);
  }, [trialEndsAt, queryClient]);
}
