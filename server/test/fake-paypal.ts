import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_PAYPAL = { clientId: 'fake-client', clientSecret: 'fake-secret', webhookId: 'WH-FAKE' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: the fake keeps arbitrary JSON
  body: any;
}

// biome-ignore lint/suspicious/noExplicitAny: PayPal objects are plain JSON here
type Obj = Record<string, any>;

/**
 * A local PayPal REST API (OAuth2, Orders v2, Catalog, Plans, Subscriptions, webhook verification) with
 * PayPal's shapes and PayPal-Request-Id idempotency. A test plays the buyer with `approveOrder` and
 * `approveSubscription`, and decides what webhook verification answers with `verification`.
 */
export async function startFakePayPal() {
  const requests: RecordedRequest[] = [];
  const orders = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const products = new Map<string, Obj>();
  const plans = new Map<string, Obj>();
  const replies = new Map<string, [number, Obj | undefined]>();
  const tokens = new Set<string>();
  let seq = 0;
  const next = (prefix: string) => `${prefix}-${String(++seq).padStart(6, '0')}`;
  let url = '';
  const state = {
    verification: 'SUCCESS' as 'SUCCESS' | 'FAILURE',
    tokensIssued: 0,
    /** PayPal's fee on a payment of `value` (a decimal string); tests set it, 0.00 until then. */
    feeOf: (_value: string): number => 0,
  };
  /** Captures and sales (with what was refunded of them so far), for refund events. */
  const captures = new Map<string, Obj>();
  const sales = new Map<string, Obj>();
  const money = (value: number, currency: string) => ({ currency_code: currency, value: value.toFixed(2) });
  /** Sales PayPal made but no PAYMENT.SALE.COMPLETED announced yet (by subscription). */
  const unannounced = new Map<string, string[]>();

  /** PayPal charges a subscription's billing cycle: a v1 sale with its `transaction_fee`. */
  function charge(subscriptionId: string): Obj {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`no subscription ${subscriptionId}`);
    const price = plans.get(sub.plan_id)?.billing_cycles[0].pricing_scheme.fixed_price;
    const total = Number(price?.value ?? 0);
    const currency = String(price?.currency_code ?? 'USD');
    const fee = state.feeOf(total.toFixed(2));
    const id = next('SALE');
    const sale = {
      id,
      state: 'completed',
      amount: { total: total.toFixed(2), currency, details: { subtotal: total.toFixed(2) } },
      payment_mode: 'INSTANT_TRANSFER',
      protection_eligibility: 'ELIGIBLE',
      transaction_fee: { value: fee.toFixed(2), currency },
      billing_agreement_id: subscriptionId,
      create_time: new Date().toISOString(),
      update_time: new Date().toISOString(),
      links: [
        { href: `${url}/v1/payments/sale/${id}`, rel: 'self', method: 'GET' },
        { href: `${url}/v1/payments/sale/${id}/refund`, rel: 'refund', method: 'POST' },
      ],
    };
    sales.set(id, { ...sale, refunded: 0 });
    unannounced.set(subscriptionId, [...(unannounced.get(subscriptionId) ?? []), id]);
    return sale;
  }
  const error = (name: string, message: string, issue?: string): Obj => ({
    name,
    message,
    details: issue ? [{ issue }] : [],
  });

  function handle(
    method: string,
    path: string,
    body: Obj,
    query: URLSearchParams,
  ): [number, Obj | undefined] {
    const captureOf = path.match(/^\/v2\/checkout\/orders\/([^/]+)\/capture$/);
    const productOf = path.match(/^\/v1\/catalogs\/products\/([^/]+)$/);
    const subscriptionOf = path.match(/^\/v1\/billing\/subscriptions\/([^/]+)(\/cancel)?$/);
    const transactionsOf = path.match(/^\/v1\/billing\/subscriptions\/([^/]+)\/transactions$/);
    if (method === 'POST' && path === '/v2/checkout/orders') {
      const id = next('ORDER');
      const order = {
        id,
        intent: body.intent,
        status: 'PAYER_ACTION_REQUIRED',
        purchase_units: body.purchase_units,
        links: [
          { href: `${url}/v2/checkout/orders/${id}`, rel: 'self', method: 'GET' },
          { href: `${url}/checkoutnow?token=${id}`, rel: 'payer-action', method: 'GET' },
        ],
      };
      orders.set(id, order);
      return [200, order];
    }
    if (method === 'POST' && captureOf) {
      const order = orders.get(captureOf[1] ?? '');
      if (!order) return [404, error('RESOURCE_NOT_FOUND', 'No such order')];
      if (order.status === 'COMPLETED')
        return [422, error('UNPROCESSABLE_ENTITY', 'Already captured', 'ORDER_ALREADY_CAPTURED')];
      if (order.status !== 'APPROVED')
        return [422, error('UNPROCESSABLE_ENTITY', 'Payer has not approved', 'ORDER_NOT_APPROVED')];
      order.status = 'COMPLETED';
      for (const unit of order.purchase_units) {
        const gross = Number(unit.amount.value);
        const fee = state.feeOf(unit.amount.value);
        const capture = {
          id: next('CAPTURE'),
          status: 'COMPLETED',
          amount: unit.amount,
          custom_id: unit.custom_id,
          final_capture: true,
          // What the merchant receives: PayPal's fee comes off the gross amount.
          seller_receivable_breakdown: {
            gross_amount: money(gross, unit.amount.currency_code),
            paypal_fee: money(fee, unit.amount.currency_code),
            net_amount: money(gross - fee, unit.amount.currency_code),
          },
          links: [
            { href: `${url}/v2/payments/captures/CAPTURE`, rel: 'self', method: 'GET' },
            { href: `${url}/v2/checkout/orders/${order.id}`, rel: 'up', method: 'GET' },
          ],
        };
        capture.links[0] = { href: `${url}/v2/payments/captures/${capture.id}`, rel: 'self', method: 'GET' };
        captures.set(capture.id, { ...capture, refunded: 0 });
        unit.payments = { captures: [capture] };
      }
      return [201, order];
    }
    if (method === 'GET' && productOf) {
      const product = products.get(productOf[1] ?? '');
      return product ? [200, product] : [404, error('RESOURCE_NOT_FOUND', 'No such product')];
    }
    if (method === 'POST' && path === '/v1/catalogs/products') {
      const product = { ...body, id: body.id ?? next('PROD') };
      products.set(product.id, product);
      return [201, product];
    }
    if (method === 'GET' && path === '/v1/billing/plans') {
      const list = [...plans.values()].filter((p) => p.product_id === query.get('product_id'));
      return [200, { plans: list, total_items: list.length, total_pages: 1, links: [] }];
    }
    if (method === 'POST' && path === '/v1/billing/plans') {
      const plan = { ...body, id: next('P'), status: body.status ?? 'ACTIVE' };
      plans.set(plan.id, plan);
      return [201, plan];
    }
    if (method === 'POST' && path === '/v1/billing/subscriptions') {
      if (!plans.has(body.plan_id))
        return [422, error('UNPROCESSABLE_ENTITY', 'No such plan', 'INVALID_PLAN')];
      const id = next('I');
      const sub = {
        id,
        status: 'APPROVAL_PENDING',
        plan_id: body.plan_id,
        custom_id: body.custom_id,
        quantity: body.quantity ?? '1',
        links: [
          { href: `${url}/webapps/billing/subscriptions?ba_token=BA-${id}`, rel: 'approve', method: 'GET' },
          { href: `${url}/v1/billing/subscriptions/${id}`, rel: 'self', method: 'GET' },
        ],
      };
      subscriptions.set(id, sub);
      return [201, sub];
    }
    if (method === 'GET' && transactionsOf) {
      const sub = subscriptions.get(transactionsOf[1] ?? '');
      if (!sub) return [404, error('RESOURCE_NOT_FOUND', 'No such subscription')];
      if (!query.get('start_time') || !query.get('end_time'))
        return [400, error('INVALID_REQUEST', 'start_time and end_time are required')];
      const transactions = [...sales.values()]
        .filter((sale) => sale.billing_agreement_id === sub.id)
        .map((sale) => ({
          id: sale.id,
          status: 'COMPLETED',
          time: sale.create_time,
          amount_with_breakdown: {
            gross_amount: { currency_code: sale.amount.currency, value: sale.amount.total },
            fee_amount: { currency_code: sale.amount.currency, value: sale.transaction_fee.value },
            net_amount: {
              currency_code: sale.amount.currency,
              value: (Number(sale.amount.total) - Number(sale.transaction_fee.value)).toFixed(2),
            },
          },
        }));
      return [200, { transactions, total_items: transactions.length, total_pages: 1, links: [] }];
    }
    if (subscriptionOf) {
      const sub = subscriptions.get(subscriptionOf[1] ?? '');
      if (!sub) return [404, error('RESOURCE_NOT_FOUND', 'No such subscription')];
      if (method === 'GET' && !subscriptionOf[2]) return [200, sub];
      if (method === 'POST' && subscriptionOf[2]) {
        if (sub.status !== 'ACTIVE' && sub.status !== 'SUSPENDED')
          return [422, error('UNPROCESSABLE_ENTITY', 'Invalid status', 'SUBSCRIPTION_STATUS_INVALID')];
        sub.status = 'CANCELLED';
        return [204, undefined];
      }
    }
    if (method === 'POST' && path === '/v1/notifications/verify-webhook-signature') {
      const ok = body.webhook_id === FAKE_PAYPAL.webhookId && body.transmission_sig && body.webhook_event?.id;
      return [200, { verification_status: ok ? state.verification : 'FAILURE' }];
    }
    return [404, error('RESOURCE_NOT_FOUND', `${method} ${path} is not faked`)];
  }

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const { pathname, searchParams } = new URL(req.url ?? '/', url);
      const method = req.method ?? 'GET';
      const isForm = req.headers['content-type']?.includes('x-www-form-urlencoded');
      const body = raw && !isForm ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
      requests.push({ method, path: pathname, headers: req.headers, body });
      const send = ([status, payload]: [number, Obj | undefined]) => {
        res.writeHead(status, payload ? { 'content-type': 'application/json' } : {});
        res.end(payload ? JSON.stringify(payload) : undefined);
      };
      const auth = req.headers.authorization ?? '';
      if (pathname === '/v1/oauth2/token') {
        const basic = Buffer.from(`${FAKE_PAYPAL.clientId}:${FAKE_PAYPAL.clientSecret}`).toString('base64');
        if (auth !== `Basic ${basic}` || body.grant_type !== 'client_credentials')
          return send([401, { error: 'invalid_client', error_description: 'Client Authentication failed' }]);
        const token = `A21-${next('TOKEN')}`;
        tokens.add(token);
        state.tokensIssued += 1;
        return send([
          200,
          {
            scope: 'https://uri.paypal.com/services/payments',
            access_token: token,
            token_type: 'Bearer',
            expires_in: 32400,
          },
        ]);
      }
      if (!tokens.has(auth.replace(/^Bearer /, '')))
        return send([401, error('AUTHENTICATION_FAILURE', 'Authentication failed due to invalid token')]);
      const requestId = req.headers['paypal-request-id'];
      const key = typeof requestId === 'string' ? `${pathname} ${requestId}` : undefined;
      const reply = (key && replies.get(key)) || handle(method, pathname, body, searchParams);
      if (key && method === 'POST' && reply[0] < 300) replies.set(key, reply);
      send(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    orders,
    subscriptions,
    state,
    /** The buyer approves a one-off order on PayPal's page. */
    approveOrder(id: string) {
      const order = orders.get(id);
      if (!order) throw new Error(`no order ${id}`);
      order.status = 'APPROVED';
    },
    /** The buyer approves a subscription; ACTIVE once PayPal has charged the first cycle (a sale). */
    approveSubscription(id: string, status: 'ACTIVE' | 'APPROVED' = 'ACTIVE', nextBilling?: Date) {
      const sub = subscriptions.get(id);
      if (!sub) throw new Error(`no subscription ${id}`);
      const plan = plans.get(sub.plan_id);
      sub.status = status;
      if (status === 'ACTIVE') charge(id);
      if (status === 'ACTIVE')
        sub.billing_info = {
          outstanding_balance: { currency_code: 'USD', value: '0.00' },
          cycle_executions: [{ tenure_type: 'REGULAR', sequence: 1, cycles_completed: 1, total_cycles: 0 }],
          last_payment: {
            amount: plan?.billing_cycles[0].pricing_scheme.fixed_price,
            time: new Date().toISOString(),
          },
          next_billing_time: (nextBilling ?? new Date(Date.now() + 30 * 86_400_000)).toISOString(),
        };
    },
    /**
     * PayPal charged a subscription's billing cycle: the PAYMENT.SALE.COMPLETED event (a v1 sale, with
     * PayPal's `transaction_fee`) for the test to deliver. Its subscription transactions list the sale.
     */
    saleCompleted(subscriptionId: string) {
      // The sale PayPal made at approval (first cycle) if not announced yet, else a new cycle's.
      const pending = unannounced.get(subscriptionId) ?? [];
      const saleId = pending.shift() ?? String(charge(subscriptionId).id);
      unannounced.set(
        subscriptionId,
        pending.filter((id) => id !== saleId),
      );
      const { refunded: _refunded, ...sale } = sales.get(saleId) ?? {};
      return { event_type: 'PAYMENT.SALE.COMPLETED', resource_type: 'sale', resource: sale };
    },
    /** The ids of a subscription's sales, first first. */
    salesOf: (subscriptionId: string) =>
      [...sales.values()]
        .filter((sale) => sale.billing_agreement_id === subscriptionId)
        .map((sale) => sale.id),
    /**
     * The merchant refunds a sale (all of it, or `amount`): the PAYMENT.SALE.REFUNDED event, a v1 refund
     * naming its sale (`sale_id`) with this refund's amount and the total refunded so far.
     */
    saleRefunded(saleId: string, amount?: number) {
      const sale = sales.get(saleId);
      if (!sale) throw new Error(`no sale ${saleId}`);
      const total = Number(sale.amount.total);
      const value = Math.min(amount ?? total, total - sale.refunded);
      sale.refunded += value;
      const refundId = next('REFUND');
      const currency = sale.amount.currency;
      return {
        event_type: 'PAYMENT.SALE.REFUNDED',
        resource_type: 'refund',
        resource: {
          id: refundId,
          state: 'completed',
          sale_id: saleId,
          amount: { total: value.toFixed(2), currency },
          total_refunded_amount: { value: sale.refunded.toFixed(2), currency },
          create_time: new Date().toISOString(),
          update_time: new Date().toISOString(),
          links: [
            { href: `${url}/v1/payments/refund/${refundId}`, rel: 'self', method: 'GET' },
            { href: `${url}/v1/payments/sale/${saleId}`, rel: 'sale', method: 'GET' },
          ],
        },
      };
    },
    /**
     * The merchant refunds a capture (all of it, or `amount`): the PAYMENT.CAPTURE.REFUNDED event, a v2
     * refund whose `up` link names the capture, with the total refunded so far in its breakdown.
     */
    captureRefunded(captureId: string, amount?: number) {
      const capture = captures.get(captureId);
      if (!capture) throw new Error(`no capture ${captureId}`);
      const gross = Number(capture.amount.value);
      const value = Math.min(amount ?? gross, gross - capture.refunded);
      capture.refunded += value;
      const currency = capture.amount.currency_code;
      const refundId = next('REFUND');
      return {
        event_type: 'PAYMENT.CAPTURE.REFUNDED',
        resource_type: 'refund',
        resource: {
          id: refundId,
          status: 'COMPLETED',
          amount: money(value, currency),
          custom_id: capture.custom_id,
          seller_payable_breakdown: {
            gross_amount: money(value, currency),
            paypal_fee: money(0, currency),
            net_amount: money(value, currency),
            total_refunded_amount: money(capture.refunded, currency),
          },
          create_time: new Date().toISOString(),
          update_time: new Date().toISOString(),
          links: [
            { href: `${url}/v2/payments/refunds/${refundId}`, rel: 'self', method: 'GET' },
            { href: `${url}/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' },
          ],
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type FakePayPal = Awaited<ReturnType<typeof startFakePayPal>>;
