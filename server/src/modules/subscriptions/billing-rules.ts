/**
 * Pure billing rules: yearly prices, currency symbols, billing-cycle
 * detection, add-on and downgrade rules. No I/O: table-tested in billing-rules.test.ts.
 */
import { monthlyEquivalent } from '@berth/openapi/rules';
import { PLANS, type Standing, YEARLY_DISCOUNT, yearlyPrice } from './plan-rules.ts';

export type PaidPlan = 'starter' | 'pro';
export type BillingCycle = 'monthly' | 'yearly';

export const DOWNGRADE_BLOCKED_MESSAGE =
  'Please delete your extra instances before downgrading. The basic Starter plan is limited to 1 instance.';

export const NO_PAYMENT_METHODS_MESSAGE =
  'No payment methods are currently available. Please contact support or enable a method in Admin settings.';

const SYMBOLS: Record<string, string> = { USD: '$', EUR: '€', GBP: '£' };

/** '$', '€' or '£'; '$' for any other currency (the spec's default symbol). */
export function currencySymbol(currency: string): string {
  return SYMBOLS[currency.toUpperCase()] ?? '$';
}

/** A plan's yearly price and its monthly equivalent, both rounded to cents. */
export function yearlyPricing(plan: PaidPlan): { yearly: number; monthlyEquivalent: number } {
  const yearly = yearlyPrice(PLANS[plan].monthlyPrice, YEARLY_DISCOUNT[plan]);
  return { yearly, monthlyEquivalent: monthlyEquivalent(yearly) };
}

export interface CycleHints {
  /** A cycle word as a provider or the old API tells it ('monthly', 'year', 'annual', …). */
  word?: string | null;
  /** The amount charged per period. */
  total?: number | null;
  monthlyPrice: number;
  nextBillingDate?: Date | null;
  now: Date;
}

/**
 * The cycle word wins; else a total of at least 10 × the monthly price, or a next billing 300 or more
 * days away, means yearly; 20–45 days means monthly; otherwise unknown (null).
 */
export function detectBillingCycle(h: CycleHints): BillingCycle | null {
  const word = h.word?.trim().toLowerCase() ?? '';
  if (/^(year|yearly|annual|annually)$/.test(word)) return 'yearly';
  if (/^(month|monthly)$/.test(word)) return 'monthly';
  if (
    h.total != null &&
    h.monthlyPrice > 0 &&
    Math.round(h.total * 100) >= 10 * Math.round(h.monthlyPrice * 100)
  )
    return 'yearly';
  if (h.nextBillingDate) {
    const days = (h.nextBillingDate.getTime() - h.now.getTime()) / 86_400_000;
    if (days >= 300) return 'yearly';
    if (days >= 20 && days <= 45) return 'monthly';
  }
  return null;
}

/** The Additional Instance add-on is offered only on an active Starter plan. */
export function canBuyAddonInstance(plan: string, standing: Standing): boolean {
  return plan === 'starter' && standing === 'active';
}

/** Pro → Starter is refused while more than 1 instance is used (the spec message); null when allowed. */
export function downgradeBlockReason(from: string, to: string, instancesUsed: number): string | null {
  return from === 'pro' && to === 'starter' && instancesUsed > 1 ? DOWNGRADE_BLOCKED_MESSAGE : null;
}

/** Dropping the add-on needs a confirmation (back to one instance at the base price) when maxInstances > 1. */
export function addonDowngradeNeedsConfirmation(maxInstances: number): boolean {
  return maxInstances > 1;
}

/** When a period granted or paid at `from` ends: one calendar month or one year later. */
export function periodEnd(from: Date, cycle: BillingCycle): Date {
  const end = new Date(from.getTime());
  if (cycle === 'yearly') end.setUTCFullYear(end.getUTCFullYear() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end;
}
