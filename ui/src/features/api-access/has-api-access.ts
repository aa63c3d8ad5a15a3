import type { User } from '@berth/openapi';
import { standingOf } from '../subscription/standing.ts';

/** Whether the user may use API keys now: a running Pro plan (the server decides the same way). */
export function hasApiAccess(user: User | null, now = new Date()): boolean {
  return user !== null && user.subscription.plan === 'pro' && standingOf(user.subscription, now) === 'active';
}
