import type Stripe from 'stripe';
import { PaymentProviderError } from '../../../lib/errors.ts';
import { type PriceFacts, priceFacts } from './stripe-client.ts';

/** What Stripe's objects mean to Berth: pure readings, no calls and no SQL. */

/** What one Stripe subscription means here. */
export interface SubscriptionFacts {
  userId: string | undefined;
  customerId: string;
  plan: PriceFacts | undefined;
  addons: number;
  periodEnd: Date | undefined;
}

export function factsOf(sub: Stripe.Subscription): SubscriptionFacts {
  let plan: PriceFacts | undefined;
  let addons = 0;
  let periodEnd: number | undefined;
  for (const item of sub.items.data) {
    const facts = priceFacts(item.price);
    if (facts?.kind === 'plan') {
      plan = facts;
      periodEnd = item.current_period_end;
    } else if (facts?.kind === 'addon_instance') addons += item.quantity ?? 1;
  }
  return {
    userId: sub.metadata?.userId,
    customerId: typeof sub.customer === 'string' ? sub.customer : sub.customer.id,
    plan,
    addons,
    periodEnd: periodEnd ? new Date(periodEnd * 1000) : undefined,
  };
}

/** Runs a Stripe call; its failure becomes a PaymentProviderError (502), Stripe's own error its logged cause. */
export async function viaStripe<T>(message: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw new PaymentProviderError(message, { cause: err });
  }
}

/** The id of an expandable reference (an id, or the expanded object). */
export const idOf = (ref: string | { id: string } | null | undefined) =>
  typeof ref === 'string' ? ref : ref?.id;

/** For the payment listener: a subscription's own payment (first or renewal) or a change's proration. */
export function invoiceKind(invoice: Stripe.Invoice, plan: PriceFacts | undefined): 'plan' | 'other' {
  const reason = invoice.billing_reason;
  return plan && (reason === 'subscription_create' || reason === 'subscription_cycle') ? 'plan' : 'other';
}

/**
 * For the payment listener: what the invoice paid for the plan, in minor units: the amount paid less
 * tax and less Stripe's fee (`feeMinor`, from the charge's balance transaction), less the add-on items'
 * share (by their list amounts in the subscription).
 */
export function planShareMinor(
  invoice: Stripe.Invoice,
  sub: Stripe.Subscription | undefined,
  feeMinor = 0,
): number {
  const tax = (invoice.total_taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
  const net = Math.max(0, invoice.amount_paid - tax - feeMinor);
  let planAmount = 0;
  let allAmount = 0;
  for (const item of sub?.items.data ?? []) {
    const amount = (item.price.unit_amount ?? 0) * (item.quantity ?? 1);
    allAmount += amount;
    if (priceFacts(item.price)?.kind === 'plan') planAmount += amount;
  }
  return allAmount > 0 ? Math.round((net * planAmount) / allAmount) : net;
}
