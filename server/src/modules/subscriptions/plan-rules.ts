import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';

/**
 * Pure plan and trial rules. No I/O: table-tested in
 * plan-rules.test.ts.
 */
export const TRIAL_MINUTES = 60;
export const TRIAL_WARNING_MINUTES = 5;

export const PLAN_IDS = ['free', 'starter', 'pro'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const PLANS: Record<PlanId, { name: string; monthlyPrice: number; maxInstances: number }> = {
  free: { name: 'Free', monthlyPrice: 0, maxInstances: 1 },
  starter: { name: 'Starter', monthlyPrice: 3.99, maxInstances: 1 },
  pro: { name: 'Pro', monthlyPrice: 19.99, maxInstances: -1 },
};

export const ADDON_INSTANCE_MONTHLY_PRICE = 3.99;

/** Share taken off twelve monthly payments when paying yearly: Starter 10 %, Pro 30 %. */
export const YEARLY_DISCOUNT: Record<'starter' | 'pro', number> = { starter: 0.1, pro: 0.3 };

/** The price of a year: one rule with the UI's (@berth/openapi/rules). */
export { yearlyPrice } from '@berth/openapi/rules';

export type Standing = 'trial' | 'active' | 'inactive';

export interface SubscriptionFacts {
  plan: PlanId;
  status: 'trialing' | 'active' | 'past_due' | 'canceled' | 'expired';
  trialEndsAt: Date | null;
  currentPeriodEnd: Date | null;
  addonInstances: number;
}

/** A subscription row as these rules read it. */
export const factsOf = (row: SubscriptionRow): SubscriptionFacts => ({
  plan: row.plan,
  status: row.status,
  trialEndsAt: row.trial_ends_at,
  currentPeriodEnd: row.current_period_end,
  addonInstances: row.addon_instances,
});

export function trialEnd(start: Date): Date {
  return new Date(start.getTime() + TRIAL_MINUTES * 60_000);
}

/** trial while the trial clock runs; active while a paid period runs; otherwise inactive. */
export function standingOf(sub: SubscriptionFacts, now: Date): Standing {
  if (sub.status === 'active' && (sub.currentPeriodEnd === null || sub.currentPeriodEnd > now))
    return 'active';
  if (sub.trialEndsAt !== null && sub.trialEndsAt > now) return 'trial';
  return 'inactive';
}

/** Instances allowed; -1 means unlimited. The trial allows one, like Starter. */
export function maxInstancesOf(sub: SubscriptionFacts, standing: Standing): number {
  if (standing === 'trial') return 1;
  const base = PLANS[sub.plan].maxInstances;
  if (base === -1) return -1;
  return sub.plan === 'starter' ? base + sub.addonInstances : base;
}

/** 'Pro', 'Starter + Additional Instance' (more than one allowed) or 'Starter'; 'Free' otherwise. */
export function planLabel(plan: PlanId, maxInstances: number): string {
  if (plan === 'pro') return 'Pro';
  if (plan === 'starter') return maxInstances > 1 ? 'Starter + Additional Instance' : 'Starter';
  return 'Free';
}

/** Whether one more instance fits: -1 is unlimited, and an inactive subscription allows none. */
export function canCreateInstance(standing: Standing, maxInstances: number, used: number): boolean {
  if (standing === 'inactive') return false;
  return maxInstances === -1 || used < maxInstances;
}
