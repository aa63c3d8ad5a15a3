import type { Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { NewPaymentOrderRow, PaymentOrderRow, PaymentProviderId } from '../../db/tables/payments.ts';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import {
  type BillingCycle,
  canBuyAddonInstance,
  DOWNGRADE_BLOCKED_MESSAGE,
  downgradeBlockReason,
  type PaidPlan,
} from '../subscriptions/billing-rules.ts';
import { factsOf, PLANS, standingOf } from '../subscriptions/plan-rules.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { periodAmount, type StoredPaymentSettings } from './payment-settings.ts';
import { insertOrder } from './payments.ledger.ts';

/** What a user buys: a plan for a cycle, or one more instance on their Starter plan. */
export type PurchaseRequest =
  | { purchaseType: 'addon_instance' }
  | { plan: PaidPlan; billingCycle: BillingCycle };

export const PAYMENT_METHOD_UNAVAILABLE = 'This payment method is not available. Please choose another one.';
export const ADDON_ONLY_ON_ACTIVE_STARTER =
  'An additional instance can only be added to an active Starter plan.';

const RENEWING_NAMES: Record<'stripe' | 'paypal_business', string> = {
  stripe: 'card (Stripe)',
  paypal_business: 'PayPal',
};

/**
 * A plan that renews by itself with one provider is not paid a second time with another (both would
 * charge): the user pays with the same provider, or cancels the renewal first.
 */
export function renewalConflict(row: SubscriptionRow, provider: PaymentProviderId, now: Date): string | null {
  if (row.provider !== 'stripe' && row.provider !== 'paypal_business') return null;
  if (!row.provider_subscription_id || row.cancel_at_period_end || row.provider === provider) return null;
  if (standingOf(factsOf(row), now) !== 'active') return null;
  const name = RENEWING_NAMES[row.provider];
  return `Your plan renews by ${name}. Pay with ${name}, or cancel the renewal on the Billing page first.`;
}

/**
 * Opens a pending order inside the caller's transaction, with the user's subscription locked: the
 * add-on only on an active Starter plan, no Starter with more instances than it allows (the spec's
 * downgrade message), no second renewing provider; the amount from the admin's prices.
 */
export async function openOrder(
  trx: Transaction<Database>,
  deps: { now: () => Date; subscriptions: Pick<SubscriptionsService, 'lockRow' | 'countInstances'> },
  input: {
    userId: string;
    provider: PaymentProviderId;
    request: PurchaseRequest;
    settings: StoredPaymentSettings;
    extra?: Partial<NewPaymentOrderRow>;
  },
): Promise<{ order: PaymentOrderRow; subscription: SubscriptionRow }> {
  const { userId, request, settings } = input;
  const row = await deps.subscriptions.lockRow(userId, trx);
  if (!row) throw new NotFoundError('Subscription not found');
  const at = deps.now();
  const conflict = renewalConflict(row, input.provider, at);
  if (conflict) throw new ConflictError(conflict);
  let kind: 'plan' | 'addon_instance';
  let plan: PaidPlan;
  let cycle: BillingCycle;
  if ('purchaseType' in request) {
    if (!canBuyAddonInstance(row.plan, standingOf(factsOf(row), at)))
      throw new ConflictError(ADDON_ONLY_ON_ACTIVE_STARTER);
    kind = 'addon_instance';
    plan = 'starter';
    cycle = row.billing_cycle ?? 'monthly';
  } else {
    kind = 'plan';
    plan = request.plan;
    cycle = request.billingCycle;
    const used = await deps.subscriptions.countInstances(userId, trx);
    const blocked =
      downgradeBlockReason(row.plan, plan, used) ??
      (plan === 'starter' && used > PLANS.starter.maxInstances + row.addon_instances
        ? DOWNGRADE_BLOCKED_MESSAGE
        : null);
    if (blocked) throw new ConflictError(blocked, { instancesUsed: used });
  }
  const addons = kind === 'plan' && plan === 'starter' ? row.addon_instances : 0;
  const order = await insertOrder(trx, {
    ...input.extra,
    user_id: userId,
    provider: input.provider,
    kind,
    plan,
    billing_cycle: cycle,
    amount: periodAmount(settings, { kind, plan, cycle, addons }),
    currency: settings.currency,
  });
  return { order, subscription: row };
}
