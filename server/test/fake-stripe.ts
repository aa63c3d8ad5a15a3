import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A local server that speaks the part of Stripe's API Berth uses (customers, products, prices, Checkout
 * Sessions, subscriptions, the billing portal), form-encoded like api.stripe.com, with Idempotency-Key
 * replay. Test helpers play the buyer and Stripe's side: complete a checkout, renew, fail or cancel a
 * subscription, and deliver the matching webhook events signed with the real SDK's test-header helper.
 * Its /checkout/{id} page lets a browser pay (Playwright walk-through).
 */

type Obj = Record<string, unknown>;

/** Stripe's form encoding (`a[b][0][c]=1`) back into objects and arrays. */
function parseStripeForm(body: string): Obj {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: Obj = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else {
        node[part] ??= {};
        node = node[part] as Obj;
      }
    });
  }
  const arrays = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    const o = v as Obj;
    const keys = Object.keys(o);
    const mapped = Object.fromEntries(keys.map((k) => [k, arrays(o[k])]));
    return keys.length > 0 && keys.every((k) => /^\d+$/.test(k))
      ? keys.sort((a, b) => Number(a) - Number(b)).map((k) => mapped[k])
      : mapped;
  };
  return arrays(root) as Obj;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(8).toString('hex')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

interface RecordedStripeRequest {
  method: string;
  path: string;
  body: Obj;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
  authorization: string | undefined;
}

export interface FakeStripeOptions {
  webhookSecret: string;
  /** Where events go (the app's /api/payments/webhooks/stripe); or set `deliverTo` later. */
  webhookUrl?: string;
}

export async function startFakeStripe(options: FakeStripeOptions) {
  const requests: RecordedStripeRequest[] = [];
  const customers = new Map<string, Obj>();
  const products = new Map<string, Obj>();
  const prices = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const invoices = new Map<string, Obj>();
  const replay = new Map<string, { status: number; body: Obj }>();
  /** The PaymentIntent that paid each invoice (as Stripe's invoice payments tell it). */
  const paymentIntents = new Map<string, string>();
  /** PaymentIntents, their charges and the charges' balance transactions (what Stripe kept as its fee). */
  const intents = new Map<string, Obj>();
  const charges = new Map<string, Obj>();
  const balanceTransactions = new Map<string, Obj>();
  /** Stripe's fee on a charge, in minor units (tests set it; 0 until then). */
  let feeOf: (amount: number, currency: string) => number = () => 0;
  let base = '';
  let webhookUrl = options.webhookUrl;
  let deliverTo: ((body: string, signature: string) => Promise<number>) | undefined;
  const sdk = new Stripe('sk_test_fake');

  const notFound = (what: string, key: string) => ({
    status: 404,
    body: {
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such ${what}: '${key}'`,
      },
    },
  });

  const priceObject = (p: Obj) => ({ ...p });
  const interval = (sub: Obj) => {
    const items = (sub.items as { data: Obj[] }).data;
    const recurring = (items[0]?.price as Obj | undefined)?.recurring as { interval?: string } | undefined;
    return recurring?.interval === 'year' ? 'year' : 'month';
  };
  const addInterval = (from: number, unit: 'month' | 'year') => {
    const d = new Date(from * 1000);
    if (unit === 'year') d.setUTCFullYear(d.getUTCFullYear() + 1);
    else d.setUTCMonth(d.getUTCMonth() + 1);
    return Math.floor(d.getTime() / 1000);
  };
  function item(priceId: string, quantity: number, periodEnd: number): Obj {
    const price = prices.get(priceId);
    if (!price) throw new Error(`fake Stripe: no price ${priceId}`);
    return {
      id: id('si'),
      object: 'subscription_item',
      price: priceObject(price),
      quantity,
      current_period_start: nowSeconds(),
      current_period_end: periodEnd,
    };
  }
  const itemsOf = (sub: Obj) => (sub.items as { data: Obj[] }).data;

  /** A succeeded PaymentIntent with its charge and the charge's balance transaction; answers its id. */
  function pay(amount: number, currency: string, customer: unknown): string {
    const intentId = id('pi');
    const chargeId = id('ch');
    const txnId = id('txn');
    const fee = amount > 0 ? feeOf(amount, currency) : 0;
    balanceTransactions.set(txnId, {
      id: txnId,
      object: 'balance_transaction',
      amount,
      currency,
      fee,
      fee_details: fee
        ? [{ amount: fee, currency, description: 'Stripe processing fees', type: 'stripe_fee' }]
        : [],
      net: amount - fee,
      exchange_rate: null,
      source: chargeId,
      status: 'pending',
      type: 'charge',
      created: nowSeconds(),
    });
    charges.set(chargeId, {
      id: chargeId,
      object: 'charge',
      amount,
      amount_captured: amount,
      amount_refunded: 0,
      refunded: false,
      paid: true,
      status: 'succeeded',
      currency,
      customer,
      payment_intent: intentId,
      balance_transaction: txnId,
    });
    intents.set(intentId, {
      id: intentId,
      object: 'payment_intent',
      amount,
      amount_received: amount,
      currency,
      customer,
      status: 'succeeded',
      latest_charge: chargeId,
    });
    return intentId;
  }

  /** Stripe's `expand[]` parameters of a GET request. */
  const expansions = (query: URLSearchParams) =>
    [...query.entries()].filter(([k]) => /^expand\[\d*\]$/.test(k)).map(([, v]) => v);

  /** A charge as answered, its balance transaction expanded when asked. */
  function chargeView(charge: Obj, expand: string[]): Obj {
    return expand.includes('balance_transaction')
      ? {
          ...charge,
          balance_transaction: balanceTransactions.get(String(charge.balance_transaction)) ?? null,
        }
      : { ...charge };
  }

  function newInvoice(sub: Obj, reason: string): Obj {
    const amount = itemsOf(sub).reduce(
      (sum, i) => sum + Number((i.price as Obj).unit_amount) * Number(i.quantity ?? 1),
      0,
    );
    const invoiceId = id('in');
    const currency = ((itemsOf(sub)[0] as Obj).price as Obj).currency as string;
    paymentIntents.set(invoiceId, pay(amount, currency, sub.customer));
    const invoice = {
      id: invoiceId,
      object: 'invoice',
      customer: sub.customer,
      amount_paid: amount,
      amount_due: amount,
      currency: ((itemsOf(sub)[0] as Obj).price as Obj).currency,
      status: 'paid',
      billing_reason: reason,
      description: null,
      created: nowSeconds(),
      status_transitions: { paid_at: nowSeconds() },
      hosted_invoice_url: `${base}/invoices/${invoiceId}`,
      invoice_pdf: `${base}/invoices/${invoiceId}/pdf`,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { subscription: sub.id, metadata: sub.metadata },
      },
    };
    invoices.set(invoiceId, invoice);
    return invoice;
  }

  function handle(
    method: string,
    path: string,
    body: Obj,
    query: URLSearchParams,
  ): { status: number; body: Obj } {
    const seg = path.split('/').filter(Boolean);
    if (seg[0] !== 'v1') return notFound('path', path);
    const [, resource, key, sub] = seg;
    const ok = (o: Obj) => ({ status: 200, body: o });
    if (resource === 'customers' && method === 'POST' && !key) {
      const c = {
        id: id('cus'),
        object: 'customer',
        email: body.email,
        name: body.name,
        metadata: body.metadata ?? {},
      };
      customers.set(c.id, c);
      return ok(c);
    }
    if (resource === 'customers' && key)
      return customers.has(key) ? ok(customers.get(key) as Obj) : notFound('customer', key);
    if (resource === 'products' && method === 'POST') {
      const p = { id: (body.id as string) ?? id('prod'), object: 'product', name: body.name, active: true };
      if (products.has(p.id))
        return {
          status: 400,
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'resource_already_exists',
              message: 'Product already exists.',
            },
          },
        };
      products.set(p.id, p);
      return ok(p);
    }
    if (resource === 'products' && key)
      return products.has(key) ? ok(products.get(key) as Obj) : notFound('product', key);
    if (resource === 'prices' && method === 'GET') {
      const keys = query.getAll('lookup_keys[0]').concat(query.getAll('lookup_keys[]'));
      const data = [...prices.values()].filter((p) => keys.includes(String(p.lookup_key)));
      return ok({ object: 'list', data, has_more: false, url: '/v1/prices' });
    }
    if (resource === 'prices' && method === 'POST') {
      if (!products.has(String(body.product))) return notFound('product', String(body.product));
      const p = {
        id: id('price'),
        object: 'price',
        active: true,
        product: body.product,
        currency: body.currency,
        unit_amount: Number(body.unit_amount),
        recurring: { interval: (body.recurring as Obj).interval, interval_count: 1 },
        lookup_key: body.lookup_key ?? null,
        metadata: body.metadata ?? {},
      };
      prices.set(p.id, p);
      return ok(p);
    }
    if (resource === 'checkout' && key === 'sessions' && method === 'POST') {
      const s = {
        id: id('cs'),
        object: 'checkout.session',
        mode: body.mode,
        status: 'open',
        customer: body.customer,
        client_reference_id: body.client_reference_id ?? null,
        line_items_input: body.line_items,
        metadata: body.metadata ?? {},
        subscription_data: body.subscription_data ?? {},
        subscription: null,
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        url: '',
      };
      s.url = `${base}/checkout/${s.id}`;
      sessions.set(s.id, s);
      return ok(s);
    }
    if (resource === 'checkout' && key === 'sessions' && sub)
      return sessions.has(sub) ? ok(sessions.get(sub) as Obj) : notFound('checkout.session', sub);
    if (resource === 'subscriptions' && key) {
      const s = subscriptions.get(key);
      if (!s) return notFound('subscription', key);
      if (method === 'GET') return ok(s);
      if (method === 'DELETE') {
        s.status = 'canceled';
        return ok(s);
      }
      if (body.cancel_at_period_end !== undefined)
        s.cancel_at_period_end = body.cancel_at_period_end === 'true';
      for (const change of (body.items as Obj[] | undefined) ?? []) {
        const end = Number(itemsOf(s)[0]?.current_period_end ?? nowSeconds());
        const existing = itemsOf(s).find((i) => i.id === change.id);
        if (existing && change.deleted === 'true') {
          (s.items as { data: Obj[] }).data = itemsOf(s).filter((i) => i !== existing);
        } else if (existing) {
          if (change.price) existing.price = priceObject(prices.get(String(change.price)) as Obj);
          if (change.quantity) existing.quantity = Number(change.quantity);
        } else {
          itemsOf(s).push(item(String(change.price), Number(change.quantity ?? 1), end));
        }
      }
      return ok(s);
    }
    if (resource === 'payment_intents' && key && method === 'GET') {
      const intent = intents.get(key);
      if (!intent) return notFound('payment_intent', key);
      const expand = expansions(query);
      const inner = expand
        .filter((e) => e.startsWith('latest_charge.'))
        .map((e) => e.slice('latest_charge.'.length));
      const charge = charges.get(String(intent.latest_charge));
      return ok(
        charge && (expand.includes('latest_charge') || inner.length > 0)
          ? { ...intent, latest_charge: chargeView(charge, inner) }
          : intent,
      );
    }
    if (resource === 'charges' && key && method === 'GET') {
      const charge = charges.get(key);
      return charge ? ok(chargeView(charge, expansions(query))) : notFound('charge', key);
    }
    if (resource === 'balance_transactions' && key && method === 'GET') {
      const txn = balanceTransactions.get(key);
      return txn ? ok(txn) : notFound('balance_transaction', key);
    }
    if (resource === 'invoice_payments' && method === 'GET') {
      const pi = query.get('payment[payment_intent]');
      const invoiceFilter = query.get('invoice');
      const data = [...paymentIntents.entries()]
        .filter(([invoice, intent]) => (invoiceFilter ? invoice === invoiceFilter : intent === pi))
        .map(([invoice, intent]) => ({
          id: id('inpay'),
          object: 'invoice_payment',
          invoice,
          payment: { type: 'payment_intent', payment_intent: intent },
          status: 'paid',
        }));
      return ok({ object: 'list', data, has_more: false, url: '/v1/invoice_payments' });
    }
    if (resource === 'billing_portal' && key === 'sessions' && method === 'POST') {
      if (!customers.has(String(body.customer))) return notFound('customer', String(body.customer));
      const p = {
        id: id('bps'),
        object: 'billing_portal.session',
        customer: body.customer,
        return_url: body.return_url,
      };
      return ok({ ...p, url: `${base}/portal/${p.id}` });
    }
    return notFound('path', path);
  }

  function eventOf(type: string, object: Obj): Obj {
    return {
      id: id('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: nowSeconds(),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object: structuredClone(object) },
    };
  }

  /** Signs and sends one event; answers the webhook's HTTP status. */
  async function deliver(
    event: Obj,
    opts: { tamper?: (payload: string) => string; secret?: string } = {},
  ): Promise<number> {
    const signed = JSON.stringify(event);
    const signature = sdk.webhooks.generateTestHeaderString({
      payload: signed,
      secret: opts.secret ?? options.webhookSecret,
    });
    // A tampered delivery carries the signature of the original bytes.
    const payload = opts.tamper ? opts.tamper(signed) : signed;
    if (deliverTo) return deliverTo(payload, signature);
    if (!webhookUrl) throw new Error('fake Stripe: no webhook target');
    const res = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
    await res.text();
    return res.status;
  }

  /** The buyer pays a Checkout Session: a subscription and a paid invoice now exist; answers the events. */
  function completeCheckout(sessionId: string) {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`fake Stripe: no session ${sessionId}`);
    const lines = (session.line_items_input as Obj[]) ?? [];
    const firstPrice = prices.get(String(lines[0]?.price)) as Obj;
    const end = addInterval(
      nowSeconds(),
      ((firstPrice.recurring as Obj).interval as 'month' | 'year') ?? 'month',
    );
    const subscription: Obj = {
      id: id('sub'),
      object: 'subscription',
      customer: session.customer,
      status: 'active',
      cancel_at_period_end: false,
      metadata: ((session.subscription_data as Obj).metadata as Obj) ?? {},
      items: { object: 'list', data: lines.map((l) => item(String(l.price), Number(l.quantity ?? 1), end)) },
    };
    subscriptions.set(String(subscription.id), subscription);
    session.status = 'complete';
    session.subscription = subscription.id;
    const invoice = newInvoice(subscription, 'subscription_create');
    subscription.latest_invoice = invoice.id;
    return {
      subscription,
      invoice,
      events: [
        eventOf('checkout.session.completed', session),
        eventOf('customer.subscription.created', subscription),
        eventOf('invoice.paid', invoice),
      ],
    };
  }

  const subscriptionOrThrow = (subId: string) => {
    const s = subscriptions.get(subId);
    if (!s) throw new Error(`fake Stripe: no subscription ${subId}`);
    return s;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', base);
      const send = (status: number, body: Obj) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
        res.end(JSON.stringify(body));
      };
      // Browser pages: the hosted checkout (Pay / Cancel) and the portal.
      const checkoutPage = url.pathname.match(/^\/checkout\/([^/]+)(\/pay)?$/);
      if (checkoutPage?.[1]) {
        const session = sessions.get(checkoutPage[1]);
        if (!session) return void res.writeHead(404).end('No such checkout');
        if (checkoutPage[2] && req.method === 'POST') {
          const { events } = completeCheckout(session.id as string);
          for (const e of events) await deliver(e);
          const to = String(session.success_url).replace('{CHECKOUT_SESSION_ID}', String(session.id));
          return void res.writeHead(303, { location: to }).end();
        }
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end(
          `<!doctype html><title>Fake Stripe Checkout</title><h1>Fake Stripe Checkout</h1>` +
            `<form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay</button></form>` +
            `<a href="${session.cancel_url}">Cancel</a>`,
        );
      }
      if (url.pathname.startsWith('/portal/') || url.pathname.startsWith('/invoices/')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end(`<!doctype html><title>Fake Stripe</title><h1>${url.pathname}</h1>`);
      }
      const body = parseStripeForm(raw);
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        body,
        idempotencyKey,
        stripeVersion: req.headers['stripe-version'] as string | undefined,
        authorization: req.headers.authorization,
      });
      const replayKey =
        idempotencyKey && req.method === 'POST' ? `${url.pathname}:${idempotencyKey}` : undefined;
      const earlier = replayKey ? replay.get(replayKey) : undefined;
      if (earlier) return send(earlier.status, earlier.body);
      try {
        const answer = handle(req.method ?? 'GET', url.pathname, body, url.searchParams);
        if (replayKey) replay.set(replayKey, answer);
        send(answer.status, answer.body);
      } catch (err) {
        send(500, { error: { type: 'api_error', message: String(err) } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    requests,
    sessions,
    subscriptions,
    invoices,
    customers,
    prices,
    set webhookUrl(url: string) {
      webhookUrl = url;
    },
    /** Sends events through a function instead of HTTP (the app in-process). */
    set deliverTo(fn: (body: string, signature: string) => Promise<number>) {
      deliverTo = fn;
    },
    event: eventOf,
    deliver,
    completeCheckout,
    /** A new period is paid: the period moves on and a new paid invoice exists. */
    renew(subId: string) {
      const s = subscriptionOrThrow(subId);
      for (const i of itemsOf(s))
        i.current_period_end = addInterval(Number(i.current_period_end), interval(s));
      const invoice = newInvoice(s, 'subscription_cycle');
      return [eventOf('invoice.paid', invoice), eventOf('customer.subscription.updated', s)];
    },
    /** A renewal payment failed (Stripe retries; the subscription is past due). */
    failRenewal(subId: string) {
      const s = subscriptionOrThrow(subId);
      s.status = 'past_due';
      const invoice = { ...newInvoice(s, 'subscription_cycle'), status: 'open', amount_paid: 0 };
      return [eventOf('invoice.payment_failed', invoice), eventOf('customer.subscription.updated', s)];
    },
    /**
     * The payment of an invoice is refunded (from the Stripe dashboard): in full, or `amount` minor units
     * of it. Like Stripe, the charge's `amount_refunded` is the total refunded so far and `refunded` is
     * true once all of it is.
     */
    refund(invoiceId: string, amount?: number) {
      const intent = intents.get(String(paymentIntents.get(invoiceId)));
      const charge = intent && charges.get(String(intent.latest_charge));
      if (!charge) throw new Error(`fake Stripe: no paid invoice ${invoiceId}`);
      const total = Number(charge.amount);
      const refunded = Math.min(total, Number(charge.amount_refunded) + (amount ?? total));
      charge.amount_refunded = refunded;
      charge.refunded = refunded === total;
      return [eventOf('charge.refunded', charge)];
    },
    /** Stripe's fee on the charges made from now on (minor units), e.g. 2.9 % + 30 cents. */
    set feeOf(fn: (amount: number, currency: string) => number) {
      feeOf = fn;
    },
    charges,
    balanceTransactions,
    /** The customer's bank disputes the payment of an invoice (a chargeback). */
    dispute(invoiceId: string) {
      const invoice = invoices.get(invoiceId);
      if (!invoice) throw new Error(`fake Stripe: no invoice ${invoiceId}`);
      const dispute = {
        id: id('dp'),
        object: 'dispute',
        amount: invoice.amount_paid,
        currency: invoice.currency,
        charge: id('ch'),
        payment_intent: paymentIntents.get(invoiceId),
        reason: 'fraudulent',
        status: 'needs_response',
      };
      return [eventOf('charge.dispute.created', dispute)];
    },
    /** The subscription ends now (canceled in the portal, or unpaid for too long). */
    cancel(subId: string) {
      const s = subscriptionOrThrow(subId);
      s.status = 'canceled';
      return [eventOf('customer.subscription.deleted', s)];
    },
    /** Stops at once: browsers keep idle connections open for a minute. */
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;

/** Delivers events to an in-process app's webhook route (for `fake.deliverTo`); answers the status. */
export const toAppWebhook =
  (app: { request(path: string, init: RequestInit): Response | Promise<Response> }) =>
  async (body: string, signature: string): Promise<number> =>
    (
      await app.request('/api/payments/webhooks/stripe', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body,
      })
    ).status;
