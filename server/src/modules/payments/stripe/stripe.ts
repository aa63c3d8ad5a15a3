import { createRoute, z } from '@hono/zod-openapi';
import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Database } from '../../../db/database.ts';
import type { SubscriptionRow } from '../../../db/tables/subscriptions.ts';
import { createRouter } from '../../../lib/create-router.ts';
import { ConflictError, NotFoundError, PaymentProviderError, ValidationError } from '../../../lib/errors.ts';
import { errorResponse, json } from '../../../lib/openapi-schemas.ts';
import { requireUser } from '../../../middleware/auth.ts';
import {
  PAYMENT_FAILED,
  paymentReceived,
  purchaseDescription,
  SUBSCRIPTION_CANCELED,
} from '../billing-notices.ts';
import { periodAmount, type StoredPaymentSettings } from '../payment-settings.ts';
import type { StripeConfig } from '../payments.config.ts';
import {
  findOrder,
  isEventStored,
  recordInvoice,
  setInvoiceStatus,
  storeEventOnce,
  updateOrder,
} from '../payments.ledger.ts';
import {
  type CheckoutInput,
  type CheckoutProvider,
  type CheckoutResult,
  type ProviderDeps,
  type RenewingProvider,
  returnUrls,
} from '../provider-contract.ts';
import type { WebhookReceiver } from '../webhook-receiver.ts';
import { createStripeCatalog, createStripeClient, type PriceFacts, priceFacts } from './stripe-client.ts';

export interface StripeModule {
  checkout: CheckoutProvider;
  renewing: RenewingProvider;
  webhook: WebhookReceiver;
  /** POST /api/payments/stripe/portal. */
  router: ReturnType<typeof createRouter>;
}

export const ADDON_NEEDS_STRIPE_PLAN =
  'The additional instance is billed with your plan. Pay for it with the method your Starter plan uses.';
export const NO_STRIPE_CUSTOMER = 'There is no card subscription to manage yet. Subscribe with a card first.';

const portalRoute = createRoute({
  method: 'post',
  path: '/api/payments/stripe/portal',
  operationId: 'payments.stripePortal',
  tags: ['Payments'],
  summary: "A short-lived link to Stripe's customer portal (cards, invoices, cancellation)",
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  responses: {
    200: json(z.object({ url: z.url() }).openapi('PortalSession'), 'Where to send the browser'),
    401: errorResponse('Not signed in'),
    409: errorResponse('No Stripe customer yet'),
    502: errorResponse('Stripe did not answer'),
  },
});

/** What one Stripe subscription means here. */
interface SubscriptionFacts {
  userId: string | undefined;
  customerId: string;
  plan: PriceFacts | undefined;
  addons: number;
  periodEnd: Date | undefined;
}

function factsOf(sub: Stripe.Subscription): SubscriptionFacts {
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
async function viaStripe<T>(message: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw new PaymentProviderError(message, { cause: err });
  }
}

const idOf = (ref: string | { id: string } | null | undefined) => (typeof ref === 'string' ? ref : ref?.id);

/** For the payment listener: a subscription's own payment (first or renewal) or a change's proration. */
function invoiceKind(invoice: Stripe.Invoice, plan: PriceFacts | undefined): 'plan' | 'other' {
  const reason = invoice.billing_reason;
  return plan && (reason === 'subscription_create' || reason === 'subscription_cycle') ? 'plan' : 'other';
}

/**
 * For the payment listener: what the invoice paid for the plan, in minor units: the amount paid less
 * tax, less the add-on items' share (by their list amounts in the subscription).
 */
function planShareMinor(invoice: Stripe.Invoice, sub: Stripe.Subscription | undefined): number {
  const tax = (invoice.total_taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
  const net = Math.max(0, invoice.amount_paid - tax);
  let planAmount = 0;
  let allAmount = 0;
  for (const item of sub?.items.data ?? []) {
    const amount = (item.price.unit_amount ?? 0) * (item.quantity ?? 1);
    allAmount += amount;
    if (priceFacts(item.price)?.kind === 'plan') planAmount += amount;
  }
  return allAmount > 0 ? Math.round((net * planAmount) / allAmount) : net;
}

export function createStripe(config: StripeConfig, deps: ProviderDeps): StripeModule {
  const { db, now, subscriptions, notifications } = deps;
  const stripe = createStripeClient(config);
  const catalog = createStripeCatalog(stripe);
  const urls = returnUrls(deps.publicUrl);

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
   * object was fetched just now, so event order does not matter).
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
    await updateOrder(db, order.id, { status: 'completed', updated_at: now() });
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

  /** The invoices a fully refunded charge paid (found through Stripe's invoice payments). */
  async function refundedInvoicesOf(event: Stripe.Event): Promise<string[]> {
    if (event.type !== 'charge.refunded' || !event.data.object.refunded) return [];
    const intent = idOf(event.data.object.payment_intent);
    if (!intent) return [];
    const payments = await stripe.invoicePayments.list({
      payment: { type: 'payment_intent', payment_intent: intent },
      limit: 10,
    });
    return payments.data.map((p) => idOf(p.invoice)).filter((id): id is string => id !== undefined);
  }

  /** Listener (affiliate commissions): the invoices a disputed charge (a chargeback) paid. */
  async function disputedInvoicesOf(event: Stripe.Event): Promise<string[]> {
    if (event.type !== 'charge.dispute.created') return [];
    const intent = idOf(event.data.object.payment_intent);
    if (!intent) return [];
    const payments = await stripe.invoicePayments.list({
      payment: { type: 'payment_intent', payment_intent: intent },
      limit: 10,
    });
    return payments.data.map((p) => idOf(p.invoice)).filter((id): id is string => id !== undefined);
  }

  /** The subscription an event is about (fetched fresh), if any. */
  async function subscriptionOf(event: Stripe.Event): Promise<Stripe.Subscription | undefined> {
    let id: string | undefined;
    switch (event.type) {
      case 'checkout.session.completed':
        id = idOf(event.data.object.subscription);
        break;
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed':
        id = event.data.object.id;
        break;
      case 'invoice.paid':
      case 'invoice.payment_failed':
        id = idOf(event.data.object.parent?.subscription_details?.subscription);
        break;
      default:
        return undefined;
    }
    return id ? retrieve(id) : undefined;
  }

  async function recordPaidInvoice(
    invoice: Stripe.Invoice,
    sub: Stripe.Subscription | undefined,
    userId: string,
    trx: Transaction<Database>,
  ) {
    if (!invoice.id) return;
    const facts = sub ? factsOf(sub) : undefined;
    const plan = facts?.plan;
    const base = plan
      ? purchaseDescription('plan', plan.plan, plan.cycle)
      : (invoice.description ?? 'Berth subscription');
    const addons = plan?.plan === 'starter' ? (facts?.addons ?? 0) : 0;
    const description = addons > 0 ? `${base} + ${addons} additional instance${addons > 1 ? 's' : ''}` : base;
    await recordInvoice(trx, {
      userId,
      provider: 'stripe',
      providerRef: invoice.id,
      amount: invoice.amount_paid / 100,
      currency: invoice.currency,
      description,
      status: 'paid',
      date: new Date((invoice.status_transitions?.paid_at ?? invoice.created) * 1000),
      downloadUrl: invoice.hosted_invoice_url ?? invoice.invoice_pdf ?? null,
    });
    if (invoice.amount_paid > 0) await notifications.notify(userId, paymentReceived(description), trx);
    // Listener (affiliate commissions): the plan's share of the invoice, net of tax.
    await deps.listener?.paid(trx, {
      userId,
      provider: 'stripe',
      providerRef: invoice.id,
      kind: invoiceKind(invoice, plan),
      netMinor: planShareMinor(invoice, sub),
      currency: invoice.currency.toUpperCase(),
    });
  }

  const webhook: WebhookReceiver = {
    async receive(rawBody, headers) {
      const signature = headers.get('stripe-signature');
      if (!signature) throw new ValidationError('Missing Stripe-Signature header');
      let event: Stripe.Event;
      try {
        event = await stripe.webhooks.constructEventAsync(rawBody, signature, config.webhookSecret);
      } catch {
        throw new ValidationError('Invalid webhook signature');
      }
      if (await isEventStored(db, 'stripe', event.id)) return { duplicate: true };

      // Stripe unreachable: 502, and Stripe delivers the event again later.
      const [sub, refunded, disputed] = await viaStripe(
        'Stripe did not answer; the event will be retried',
        () => Promise.all([subscriptionOf(event), refundedInvoicesOf(event), disputedInvoicesOf(event)]),
      );
      return db.transaction().execute(async (trx) => {
        const fresh = await storeEventOnce(trx, {
          provider: 'stripe',
          id: event.id,
          type: event.type,
          payload: event,
        });
        if (!fresh) return { duplicate: true };
        const userId = sub ? await apply(sub, trx) : undefined;
        switch (event.type) {
          case 'checkout.session.completed': {
            const orderId = event.data.object.metadata?.orderId;
            const order = orderId ? await findOrder(trx, orderId) : undefined;
            if (order)
              await updateOrder(trx, order.id, {
                status: 'completed',
                provider_ref: event.data.object.id,
                updated_at: now(),
              });
            break;
          }
          case 'checkout.session.expired': {
            const orderId = event.data.object.metadata?.orderId;
            if (orderId) await updateOrder(trx, orderId, { status: 'cancelled', updated_at: now() });
            break;
          }
          case 'invoice.paid':
            if (userId) await recordPaidInvoice(event.data.object, sub, userId, trx);
            break;
          case 'invoice.payment_failed':
            if (userId) await notifications.notify(userId, PAYMENT_FAILED, trx);
            break;
          case 'charge.refunded':
            for (const invoiceId of refunded) {
              await setInvoiceStatus(trx, 'stripe', invoiceId, 'refunded');
              // Listener (affiliate commissions): the payment is refunded.
              await deps.listener?.refunded(trx, { provider: 'stripe', providerRef: invoiceId });
            }
            break;
          case 'charge.dispute.created':
            // Listener (affiliate commissions): a chargeback reverses the commission like a refund.
            for (const invoiceId of disputed)
              await deps.listener?.refunded(trx, { provider: 'stripe', providerRef: invoiceId });
            break;
          default:
            break;
        }
        return { duplicate: false };
      });
    },
  };

  const router = createRouter().openapi(portalRoute, async (c) => {
    const row = await subscriptions.row(c.var.user.id);
    if (!row) throw new NotFoundError('Subscription not found');
    if (!row.stripe_customer_id) throw new ConflictError(NO_STRIPE_CUSTOMER);
    const session = await viaStripe('Stripe did not open the customer portal. Please try again.', () =>
      stripe.billingPortal.sessions.create({
        customer: row.stripe_customer_id ?? '',
        return_url: `${urls.publicUrl}/billing`,
      }),
    );
    return c.json({ url: session.url }, 200);
  });

  return { checkout, renewing, webhook, router };
}
