import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Database } from '../../../db/database.ts';
import type { SubscriptionRow } from '../../../db/tables/subscriptions.ts';
import { ConflictError, NotFoundError } from '../../../lib/errors.ts';
import { SUBSCRIPTION_CANCELED } from '../billing-notices.ts';
import { periodAmount, type StoredPaymentSettings } from '../payment-settings.ts';
import type {
  CheckoutInput,
  CheckoutProvider,
  CheckoutResult,
  ProviderDeps,
  RenewingProvider,
  ReturnUrls,
} from '../provider-contract.ts';
import { updateStripeOrder } from './stripe.repository.ts';
import { createStripeCatalog, type createStripeClient, priceFacts } from './stripe-client.ts';
import { factsOf, type SubscriptionFacts, viaStripe } from './stripe-facts.ts';

export const ADDON_NEEDS_STRIPE_PLAN =
  'The additional instance is billed with your plan. Pay for it with the method your Starter plan uses.';
export const NO_STRIPE_CUSTOMER = 'There is no card subscription to manage yet. Subscribe with a card first.';

export type StripeClient = ReturnType<typeof createStripeClient>;
export type StripeService = ReturnType<typeof createStripeService>;

/**
 * Stripe's rules: checkout (a Checkout Session, or a change of the running subscription), renewal
 * controls, the customer portal, and `apply`, which makes our subscription row say what Stripe's
 * subscription says. The webhook (stripe.webhooks.ts) drives `apply` from events.
 */
export function createStripeService(stripe: StripeClient, urls: ReturnUrls, deps: ProviderDeps) {
  const { db, now, subscriptions, notifications } = deps;
  const catalog = createStripeCatalog(stripe);

  const planPrice = (s: StoredPaymentSettings, plan: 'starter' | 'pro', cycle: 'monthly' | 'yearly') =>
    catalog.priceId(
      { kind: 'plan', plan, cycle },
      periodAmount(s, { kind: 'plan', plan, cycle, addons: 0 }),
      s.currency,
    );
  const addonPrice = (s: StoredPaymentSettings, cycle: 'monthly' | 'yearly') =>
    catalog.priceId(
      { kind: 'addon_instance', plan: 'starter', cycle },
      periodAmount(s, { kind: 'addon_instance', plan: 'starter', cycle, addons: 0 }),
      s.currency,
    );

  async function customerFor(input: CheckoutInput): Promise<string> {
    if (input.subscription.stripe_customer_id) return input.subscription.stripe_customer_id;
    const customer = await stripe.customers.create(
      { email: input.user.email, name: input.user.username, metadata: { userId: input.user.id } },
      { idempotencyKey: `customer:${input.user.id}` },
    );
    await subscriptions.setStripeCustomer(input.user.id, customer.id);
    return customer.id;
  }

  /** Whose subscription this is: its metadata, else the user whose customer it bills. */
  async function userOf(facts: SubscriptionFacts): Promise<string | undefined> {
    if (facts.userId) return facts.userId;
    return subscriptions.userOfStripeCustomer(facts.customerId);
  }

  /**
   * Makes our subscription row say what Stripe's subscription says (Stripe is the source of truth; the
   * object was fetched just now, so event order does not matter). Answers whose subscription it is.
   */
  async function apply(sub: Stripe.Subscription, trx: Transaction<Database>): Promise<string | undefined> {
    const facts = factsOf(sub);
    const userId = await userOf(facts);
    if (!userId) return undefined;
    const row = await subscriptions.lockRow(userId, trx);
    if (!row) return undefined;
    if (row.stripe_customer_id === null) {
      await subscriptions.setStripeCustomer(userId, facts.customerId, trx);
    }
    const ours = row.provider === 'stripe' && row.provider_subscription_id === sub.id;
    switch (sub.status) {
      case 'active':
      case 'trialing':
        if (!facts.plan) return userId;
        await subscriptions.activatePlan(
          userId,
          {
            plan: facts.plan.plan,
            billingCycle: facts.plan.cycle,
            periodEnd: facts.periodEnd,
            provider: 'stripe',
            providerSubscriptionId: sub.id,
            addonInstances: facts.plan.plan === 'starter' ? facts.addons : 0,
            cancelAtPeriodEnd: sub.cancel_at_period_end,
          },
          trx,
        );
        return userId;
      case 'canceled':
      case 'unpaid':
      case 'incomplete_expired':
        // Only the subscription that bills the user's plan can end it (not an older, replaced one).
        if (ours) {
          await subscriptions.endPlan(userId, trx);
          await notifications.notify(userId, SUBSCRIPTION_CANCELED, trx);
        }
        return userId;
      default:
        // past_due: Stripe retries; the paid period runs out on its own if no payment comes.
        // incomplete / paused: nothing is paid.
        return userId;
    }
  }

  const retrieve = (id: string) => stripe.subscriptions.retrieve(id);

  async function applyNow(sub: Stripe.Subscription): Promise<void> {
    await db.transaction().execute((trx) => apply(sub, trx).then(() => undefined));
  }

  /** Changes the running subscription (plan, cycle or add-on) instead of a second checkout. */
  async function change(input: CheckoutInput, subscriptionId: string): Promise<CheckoutResult> {
    const { order, settings } = input;
    const current = await retrieve(subscriptionId);
    const planItem = current.items.data.find((i) => priceFacts(i.price)?.kind === 'plan');
    const addonItem = current.items.data.find((i) => priceFacts(i.price)?.kind === 'addon_instance');
    const items: Stripe.SubscriptionUpdateParams.Item[] = [];
    if (order.kind === 'addon_instance') {
      const cycle = planItem
        ? (priceFacts(planItem.price)?.cycle ?? order.billing_cycle)
        : order.billing_cycle;
      if (addonItem) items.push({ id: addonItem.id, quantity: (addonItem.quantity ?? 1) + 1 });
      else items.push({ price: await addonPrice(settings, cycle), quantity: 1 });
    } else {
      const price = await planPrice(settings, order.plan, order.billing_cycle);
      if (planItem) items.push({ id: planItem.id, price });
      else items.push({ price, quantity: 1 });
      if (addonItem) {
        // Pro includes unlimited instances; on Starter the add-on follows the plan's cycle.
        if (order.plan === 'pro') items.push({ id: addonItem.id, deleted: true });
        else items.push({ id: addonItem.id, price: await addonPrice(settings, order.billing_cycle) });
      }
    }
    const updated = await stripe.subscriptions.update(
      subscriptionId,
      { items, proration_behavior: 'create_prorations', cancel_at_period_end: false },
      { idempotencyKey: `order:${order.id}` },
    );
    await applyNow(updated);
    await updateStripeOrder(db, order.id, { status: 'completed', updated_at: now() });
    // Several changes touch one subscription: the order keeps no provider id of its own.
    return { redirectUrl: urls.success(updated.id), providerRef: null };
  }

  const checkout: CheckoutProvider = {
    async checkout(input) {
      const { order, settings, subscription } = input;
      const running =
        subscription.provider === 'stripe' &&
        subscription.provider_subscription_id &&
        subscription.status === 'active'
          ? subscription.provider_subscription_id
          : null;
      if (running) return change(input, running);
      if (order.kind === 'addon_instance') throw new ConflictError(ADDON_NEEDS_STRIPE_PLAN);

      const customer = await customerFor(input);
      const lineItems: Stripe.Checkout.SessionCreateParams.LineItem[] = [
        { price: await planPrice(settings, order.plan, order.billing_cycle), quantity: 1 },
      ];
      if (order.plan === 'starter' && subscription.addon_instances > 0) {
        lineItems.push({
          price: await addonPrice(settings, order.billing_cycle),
          quantity: subscription.addon_instances,
        });
      }
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          customer,
          client_reference_id: input.user.id,
          line_items: lineItems,
          metadata: { userId: input.user.id, orderId: order.id },
          subscription_data: { metadata: { userId: input.user.id, orderId: order.id } },
          // Only shows a result; access comes from the webhook.
          success_url: `${urls.publicUrl}/payment-success?tx={CHECKOUT_SESSION_ID}`,
          cancel_url: urls.cancelled,
        },
        { idempotencyKey: `checkout:${order.id}` },
      );
      if (!session.url) throw new Error('Stripe answered a Checkout Session without a URL');
      return { redirectUrl: session.url, providerRef: session.id };
    },
  };

  const renewing: RenewingProvider = {
    async setCancelAtPeriodEnd(sub: SubscriptionRow, cancel: boolean) {
      if (!sub.provider_subscription_id) return;
      const updated = await stripe.subscriptions.update(sub.provider_subscription_id, {
        cancel_at_period_end: cancel,
      });
      await applyNow(updated);
    },
    async stopRenewal(sub: SubscriptionRow) {
      if (!sub.provider_subscription_id) return;
      // Its customer.subscription.deleted event then finds the plan already ended: nothing changes.
      await stripe.subscriptions.cancel(
        sub.provider_subscription_id,
        {},
        { idempotencyKey: `revoke:${sub.provider_subscription_id}` },
      );
    },
    async removeAddons(sub: SubscriptionRow) {
      if (!sub.provider_subscription_id) return;
      const current = await retrieve(sub.provider_subscription_id);
      const addon = current.items.data.find((i) => priceFacts(i.price)?.kind === 'addon_instance');
      if (!addon) return;
      const updated = await stripe.subscriptions.update(current.id, {
        items: [{ id: addon.id, deleted: true }],
        proration_behavior: 'create_prorations',
      });
      await applyNow(updated);
    },
  };

  /** POST /api/payments/stripe/portal: a customer portal session for the user's Stripe customer. */
  async function portalUrl(userId: string): Promise<string> {
    const row = await subscriptions.row(userId);
    if (!row) throw new NotFoundError('Subscription not found');
    const customer = row.stripe_customer_id;
    if (!customer) throw new ConflictError(NO_STRIPE_CUSTOMER);
    const session = await viaStripe('Stripe did not open the customer portal. Please try again.', () =>
      stripe.billingPortal.sessions.create({ customer, return_url: `${urls.publicUrl}/billing` }),
    );
    return session.url;
  }

  return { checkout, renewing, apply, retrieve, portalUrl };
}
