import type Stripe from 'stripe';
import { ConflictError, NotFoundError } from '../../../lib/errors.ts';
import { periodAmount, type StoredPaymentSettings } from '../payment-settings.ts';
import type {
  CheckoutInput,
  CheckoutProvider,
  CheckoutResult,
  ProviderDeps,
  ReturnUrls,
} from '../provider-contract.ts';
import type { StripeClient, StripeContext } from './stripe.context.ts';
import { updateStripeOrder } from './stripe.repository.ts';
import { createStripeCatalog, priceFacts } from './stripe-client.ts';
import { viaStripe } from './stripe-facts.ts';

export const ADDON_NEEDS_STRIPE_PLAN =
  'The additional instance is billed with your plan. Pay for it with the method your Starter plan uses.';
export const NO_STRIPE_CUSTOMER = 'There is no card subscription to manage yet. Subscribe with a card first.';

/**
 * What a customer does with Stripe: checkout (a Checkout Session, or a change of the running
 * subscription) and the customer portal. Access comes from the webhook (stripe.webhooks.ts), or at once
 * from a change Stripe confirmed (applied through the context).
 */
export function createStripeService(
  stripe: StripeClient,
  urls: ReturnUrls,
  ctx: StripeContext,
  { db, now, subscriptions }: Pick<ProviderDeps, 'db' | 'now' | 'subscriptions'>,
) {
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

  /** Changes the running subscription (plan, cycle or add-on) instead of a second checkout. */
  async function change(input: CheckoutInput, subscriptionId: string): Promise<CheckoutResult> {
    const { order, settings } = input;
    const current = await ctx.retrieve(subscriptionId);
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
    await ctx.applyNow(updated);
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

  return { checkout, portalUrl };
}
