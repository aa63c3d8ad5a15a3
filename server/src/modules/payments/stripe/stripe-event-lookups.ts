import type Stripe from 'stripe';
import type { StripeClient, StripeContext } from './stripe.context.ts';
import { idOf } from './stripe-facts.ts';

/** What an event needs from Stripe besides itself; read before the webhook's transaction opens. */
export interface EventLookups {
  /** The subscription the event is about, fetched fresh (event order does not matter). */
  sub: Stripe.Subscription | undefined;
  /** charge.refunded: the invoices the refunded charge paid. */
  refunded: string[];
  /** charge.dispute.created: the invoices the disputed charge paid. */
  disputed: string[];
  /** invoice.paid: Stripe's fee on it (minor units), 0 when unknown. */
  feeMinor: number;
}

/**
 * The Stripe calls a webhook event needs before it is applied: the subscription it is about, the
 * invoices a refunded or disputed charge paid (through Stripe's invoice payments), and Stripe's fee on a
 * paid invoice (from the balance transaction of the charge that paid it).
 */
export function stripeEventLookups(stripe: StripeClient, ctx: Pick<StripeContext, 'retrieve'>) {
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

  /** Listener (affiliate commissions): the invoices a disputed charge (a chargeback) paid. */
  async function disputedInvoicesOf(event: Stripe.Event): Promise<string[]> {
    if (event.type !== 'charge.dispute.created') return [];
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
    return id ? ctx.retrieve(id) : undefined;
  }

  return async (event: Stripe.Event): Promise<EventLookups> => {
    const [sub, refunded, disputed, feeMinor] = await Promise.all([
      subscriptionOf(event),
      refundedInvoicesOf(event),
      disputedInvoicesOf(event),
      feeOf(event),
    ]);
    return { sub, refunded, disputed, feeMinor };
  };
}
