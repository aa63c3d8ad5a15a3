import type { Subscription } from '@berth/openapi';
import { useSubscriptionStatusQuery } from '../../api/subscriptions.queries.ts';
import { useCurrentUser } from '../session/use-session.ts';
import { type Standing, standingOf } from './standing.ts';
import { useRefreshAtTrialEnd } from './use-refresh-at-trial-end.ts';

export interface CurrentSubscription {
  /** The fresh subscription status when loaded, else the one that came with the profile. */
  subscription: Subscription;
  standing: Standing;
  /** Neither trial nor active: instances are suspended and changing actions are disabled. */
  inactive: boolean;
  status: ReturnType<typeof useSubscriptionStatusQuery>;
}

/** The signed-in user's subscription and standing, refreshed once when the trial runs out. */
export function useCurrentSubscription(now: Date = new Date()): CurrentSubscription {
  const user = useCurrentUser();
  const status = useSubscriptionStatusQuery();
  const subscription = status.data?.subscription ?? user.subscription;
  useRefreshAtTrialEnd(subscription.trialEndsAt);
  const standing = standingOf(subscription, now);
  return { subscription, standing, inactive: standing === 'inactive', status };
}
