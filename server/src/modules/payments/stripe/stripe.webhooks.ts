import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Database } from '../../../db/database.ts';
import { ValidationError } from '../../../lib/errors.ts';
import { PAYMENT_FAILED, paymentReceived, purchaseDescription } from '../billing-notices.ts';
import { isEventStored, recordInvoice, recordRefund, storeEventOnce } from '../payments.ledger.ts';
import type { ProviderDeps, WebhookReceiver } from '../provider-contract.ts';
import { findStripeOrder, updateStripeOrder } from './stripe.repository.ts';
import type { StripeClient, StripeService } from './stripe.service.ts';
import { factsOf, idOf, invoiceKind, planShareMinor, viaStripe } from './stripe-facts.ts';

/**
 * Stripe's webhook: verifies the signature, stores the event once, then (in one transaction) syncs the
 * subscription it is about and records what it says in the payments ledger: paid invoices, refunds,
 * chargebacks, finished or expired checkouts.
 */
export function createStripeWebhook(
  stripe: StripeClient,
  webhookSecret: string,
  service: StripeService,
  deps: ProviderDeps,
): WebhookReceiver {
  const { db, now, notifications } = deps;

  /** The invoices a charge paid (found through Stripe's invoice payments). */
  async function invoicesOfCharge(paymentIntent: string | undefined): Promise<string[]> {
    if (!paymentIntent) return [];
    const payments = await stripe.invoicePayments.list({
      payment: { type: 'payment_intent', payment_intent: paymentIntent },
      limit: 10,
    });
    return payments.data.map((p) => idOf(p.invoice)).filter((id): id is string => id !== undefined);
  }

  /** The invoices a refunded charge (in full or in part) paid. */
  async function refundedInvoicesOf(event: Stripe.Event): Promise<string[]> {
    if (event.type !== 'charge.refunded') return [];
    return invoicesOfCharge(idOf(event.data.object.payment_intent));
  }

  /**
   * Stripe's fee on a paid invoice (minor units): the `fee` of the balance transaction of the charge that
   * paid it, found through the invoice's payments. 0 when Stripe reports none yet, or reports it in
   * another (settlement) currency than the invoice's.
   */
  async function feeOf(event: Stripe.Event): Promise<number> {
    if (event.type !== 'invoice.paid') return 0;
    const invoice = event.data.object;
    if (!invoice.id || invoice.amount_paid <= 0) return 0;
    const payments = await stripe.invoicePayments.list({ invoice: invoice.id, limit: 10 });
    let charge: Stripe.Charge | undefined;
    for (const { payment, status } of payments.data) {
      if (status !== 'paid') continue;
      const intentId = idOf(payment.payment_intent);
      const chargeId = idOf(payment.charge);
      if (intentId) {
        const intent = await stripe.paymentIntents.retrieve(intentId, {
          expand: ['latest_charge.balance_transaction'],
        });
        if (intent.latest_charge && typeof intent.latest_charge !== 'string') charge = intent.latest_charge;
      } else if (chargeId) {
        charge = await stripe.charges.retrieve(chargeId, { expand: ['balance_transaction'] });
      }
      if (charge) break;
    }
    const txn = charge?.balance_transaction;
    if (!txn || typeof txn === 'string' || txn.currency !== invoice.currency) return 0;
    return txn.fee;
  }

  /** Listener (affiliate commissions): the invoices a disputed charge (a chargeback) paid. */
  async function disputedInvoicesOf(event: Stripe.Event): Promise<string[]> {
    if (event.type !== 'charge.dispute.created') return [];
    return invoicesOfCharge(idOf(event.data.object.payment_intent));
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
    return id ? service.retrieve(id) : undefined;
  }

  async function recordPaidInvoice(
    invoice: Stripe.Invoice,
    sub: Stripe.Subscription | undefined,
    feeMinor: number,
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
    // Listener (affiliate commissions): the plan's share of the invoice, net of tax and Stripe's fee.
    await deps.listener?.paid(trx, {
      userId,
      provider: 'stripe',
      providerRef: invoice.id,
      kind: invoiceKind(invoice, plan),
      netMinor: planShareMinor(invoice, sub, feeMinor),
      currency: invoice.currency.toUpperCase(),
    });
  }

  return {
    async receive(rawBody, headers) {
      const signature = headers.get('stripe-signature');
      if (!signature) throw new ValidationError('Missing Stripe-Signature header');
      let event: Stripe.Event;
      try {
        event = await stripe.webhooks.constructEventAsync(rawBody, signature, webhookSecret);
      } catch {
        throw new ValidationError('Invalid webhook signature');
      }
      if (await isEventStored(db, 'stripe', event.id)) return { duplicate: true };

      // Stripe unreachable: 502, and Stripe delivers the event again later.
      const [sub, refunded, disputed, feeMinor] = await viaStripe(
        'Stripe did not answer; the event will be retried',
        () =>
          Promise.all([
            subscriptionOf(event),
            refundedInvoicesOf(event),
            disputedInvoicesOf(event),
            feeOf(event),
          ]),
      );
      return db.transaction().execute(async (trx) => {
        const fresh = await storeEventOnce(trx, {
          provider: 'stripe',
          id: event.id,
          type: event.type,
          payload: event,
        });
        if (!fresh) return { duplicate: true };
        const userId = sub ? await service.apply(sub, trx) : undefined;
        switch (event.type) {
          case 'checkout.session.completed': {
            const order = await findStripeOrder(trx, event.data.object.metadata?.orderId);
            if (order)
              await updateStripeOrder(trx, order.id, {
                status: 'completed',
                provider_ref: event.data.object.id,
                updated_at: now(),
              });
            break;
          }
          case 'checkout.session.expired': {
            const order = await findStripeOrder(trx, event.data.object.metadata?.orderId);
            if (order) await updateStripeOrder(trx, order.id, { status: 'cancelled', updated_at: now() });
            break;
          }
          case 'invoice.paid':
            if (userId) await recordPaidInvoice(event.data.object, sub, feeMinor, userId, trx);
            break;
          case 'invoice.payment_failed':
            if (userId) await notifications.notify(userId, PAYMENT_FAILED, trx);
            break;
          case 'charge.refunded': {
            // The charge tells the total refunded so far (each further refund raises it): kept under the
            // charge, so a resent or out-of-order event never counts a refund twice.
            const charge = event.data.object;
            for (const invoiceId of refunded)
              await recordRefund(
                trx,
                {
                  provider: 'stripe',
                  paymentRef: invoiceId,
                  refundRef: `charge:${charge.id}`,
                  amount: charge.amount_refunded / 100,
                },
                deps.listener,
              );
            break;
          }
          case 'charge.dispute.created': {
            // Listener (affiliate commissions): a chargeback reverses the commission like a full refund.
            const amount = event.data.object.amount;
            for (const invoiceId of disputed)
              await deps.listener?.refunded(trx, {
                provider: 'stripe',
                providerRef: invoiceId,
                refundedMinor: amount,
                paidMinor: amount,
              });
            break;
          }
          default:
            break;
        }
        return { duplicate: false };
      });
    },
  };
}
