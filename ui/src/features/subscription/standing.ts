import type { Subscription } from '@berth/openapi';

/**
 * Subscription standing and its display texts. Pure: every
 * function takes the clock as an argument and is table-tested in standing.test.ts.
 */
export type Standing = 'trial' | 'active' | 'inactive';

const TRIAL_WARNING_MS = 5 * 60_000;
export const INACTIVE_TEXT = 'Trial expired — no active subscription';

export type StandingFacts = Pick<
  Subscription,
  'status' | 'isTrialActive' | 'isSubscriptionActive' | 'trialEndsAt' | 'nextBillingDate'
>;

const isFuture = (iso: string | null, now: Date) => iso !== null && Date.parse(iso) > now.getTime();

/**
 * active if the status is active, isSubscriptionActive is set or the next billing date lies ahead;
 * trial if isTrialActive is set or the trial end lies ahead; inactive (expired) otherwise. A paid
 * subscription taken during the trial counts as active (as on the server).
 */
export function standingOf(sub: StandingFacts, now: Date): Standing {
  if (sub.status === 'active' || sub.isSubscriptionActive || isFuture(sub.nextBillingDate, now))
    return 'active';
  if (sub.isTrialActive || isFuture(sub.trialEndsAt, now)) return 'trial';
  return 'inactive';
}

/** 'Pro'; 'Starter + Additional Instance' when more than one instance is allowed; else 'Starter'. */
export function planLabel(sub: Pick<Subscription, 'plan' | 'maxInstances'>): string {
  if (sub.plan === 'pro') return 'Pro';
  return sub.maxInstances > 1 ? 'Starter + Additional Instance' : 'Starter';
}

/** The plan's name as shown on badges; 'Free' by default. */
export function planName(sub: Pick<Subscription, 'planDetails'> | null | undefined): string {
  return sub?.planDetails?.name || 'Free';
}

/** The plan label while a paid plan runs, the plan name otherwise. */
export function currentPlanName(
  sub: Pick<Subscription, 'plan' | 'maxInstances' | 'planDetails'>,
  standing: Standing,
) {
  return standing === 'active' ? planLabel(sub) : planName(sub);
}

export const STANDING_BADGE: Record<Standing, string> = {
  trial: 'Trial',
  active: 'Active',
  inactive: 'Expired',
};

/** The one-line summary: plan label, 'Trial active — ends {date}' or the inactive notice. */
export function standingText(
  sub: StandingFacts & Pick<Subscription, 'plan' | 'maxInstances'>,
  standing: Standing,
  formatDate: (date: Date) => string = formatDateTime,
): string {
  if (standing === 'active') return planLabel(sub);
  if (standing === 'trial')
    return sub.trialEndsAt ? `Trial active — ends ${formatDate(new Date(sub.trialEndsAt))}` : 'Trial active';
  return INACTIVE_TEXT;
}

/** Milliseconds left in the trial (never negative), or null without a trial end. */
export function trialRemainingMs(sub: Pick<Subscription, 'trialEndsAt'>, now: Date): number | null {
  if (!sub.trialEndsAt) return null;
  return Math.max(0, Date.parse(sub.trialEndsAt) - now.getTime());
}

/** '{h}h {m}m', minutes rounded up so that '0h 0m' means the time is up. */
export function formatRemaining(ms: number): string {
  const totalMinutes = Math.ceil(Math.max(0, ms) / 60_000);
  return `${Math.floor(totalMinutes / 60)}h ${totalMinutes % 60}m`;
}

/** 'Trial ending soon!' shows during a trial with 5 minutes or less left. */
export function isTrialEndingSoon(standing: Standing, remainingMs: number | null): boolean {
  return standing === 'trial' && remainingMs !== null && remainingMs <= TRIAL_WARNING_MS;
}

/** maxInstances as shown: 'Unlimited' for -1. */
export function instanceAllowance(maxInstances: number): string {
  return maxInstances === -1 ? 'Unlimited' : String(maxInstances);
}

/** 'used / max'; 'used / Unlimited' when max is -1; '0 / 0' when the subscription is inactive. */
export function instancesUsage(standing: Standing, used: number, maxInstances: number): string {
  if (standing === 'inactive') return '0 / 0';
  return `${used} / ${instanceAllowance(maxInstances)}`;
}

/** How dates with a time show (useDateTimeFormat takes the same options on a server-rendered page). */
export const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
const DATE_TIME = new Intl.DateTimeFormat(undefined, DATE_TIME_OPTIONS);

export function formatDateTime(date: Date): string {
  return DATE_TIME.format(date);
}
