import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Database } from '../../../db/database.ts';
import { ValidationError } from '../../../lib/errors.ts';
import { PAYMENT_FAILED, paymentReceived, purchaseDescription } from '../billing-notices.ts';
import { isEventStored, recordInvoice, recordRefund, storeEventOnce } from '../payments.ledger.ts';
import type { ProviderDeps, WebhookReceiver } from '../provider-contract.ts';
import type { StripeClient, StripeContext } from './stripe.context.ts';
import { findStripeOrder, updateStripeOrder } from './stripe.repository.ts';
import { type EventLookups, stripeEventLookups } from './stripe-event-lookups.ts';
import { factsOf, invoiceKind, planShareMinor, viaStripe } from './stripe-facts.ts';

/**
 * A paid invoice in the payments ledger: its description from the subscription's plan and add-ons, the
 * user told (when money was paid), and the listener (affiliate commissions) told the plan's share of it,
 * net of tax and Stripe's fee.
 */
async function recordPaidInvoice(
  deps: Pick<ProviderDeps, 'notifications' | 'listener'>,
  invoice: Stripe.Invoice,
  { sub, feeMinor }: Pick<EventLookups, 'sub' | 'feeMinor'>,
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
  if (invoice.amount_paid > 0) await deps.notifications.notify(userId, paymentReceived(description), trx);
  await deps.listener?.paid(trx, {
    userId,
    provider: 'stripe',
    providerRef: invoice.id,
    kind: invoiceKind(invoice, plan),
    netMinor: planShareMinor(invoice, sub, feeMinor),
    currency: invoice.currency.toUpperCase(),
  });
}

/**
 * Stripe's webhook: verifies the signature, stores the event once, then (in one transaction) syncs the
 * subscription it is about and records what it says in the payments ledger: paid invoices, refunds,
 * chargebacks, finished or expired checkouts.
 */
export function createStripeWebhook(
  stripe: StripeClient,
  webhookSecret: string,
  ctx: StripeContext,
  deps: ProviderDeps,
): WebhookReceiver {
  const { db, now, notifications } = deps;
  const lookUp = stripeEventLookups(stripe, ctx);

  /** What one event records, after its subscription was synced (`userId`: whose it is). */
  async function record(
    event: Stripe.Event,
    found: EventLookups,
    userId: string | undefined,
    trx: Transaction<Database>,
  ) {
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
        if (userId) await recordPaidInvoice(deps, event.data.object, found, userId, trx);
        break;
      case 'invoice.payment_failed':
        if (userId) await notifications.notify(userId, PAYMENT_FAILED, trx);
        break;
      case 'charge.refunded': {
        // The charge tells the total refunded so far (each further refund raises it): kept under the
        // charge, so a resent or out-of-order event never counts a refund twice.
        const charge = event.data.object;
        for (const invoiceId of found.refunded)
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
        for (const invoiceId of found.disputed)
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
      const found = await viaStripe('Stripe did not answer; the event will be retried', () => lookUp(event));
      return db.transaction().execute(async (trx) => {
        const fresh = await storeEventOnce(trx, {
          provider: 'stripe',
          id: event.id,
          type: event.type,
          payload: event,
        });
        if (!fresh) return { duplicate: true };
        const userId = found.sub ? await ctx.apply(found.sub, trx) : undefined;
        await record(event, found, userId, trx);
        return { duplicate: false };
      });
    },
  };
}
