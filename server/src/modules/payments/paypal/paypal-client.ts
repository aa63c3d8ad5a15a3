import { createHash } from 'node:crypto';
import type { PayPalConfig } from '../payments.config.ts';

/**
 * A small PayPal REST client on `fetch` (Orders v2, Catalog Products, Billing Plans and Subscriptions,
 * webhook verification). No SDK: the official ones hard-code their base URL or lack these endpoints.
 */

export interface PayPalLink {
  href: string;
  rel: string;
  method?: string;
}

interface PayPalMoney {
  value: string;
  currency_code: string;
}

export interface PayPalCapture {
  id: string;
  status: string;
  amount?: PayPalMoney;
  custom_id?: string;
  /** What the merchant receives: the gross amount, PayPal's fee and the net. */
  seller_receivable_breakdown?: {
    gross_amount?: PayPalMoney;
    paypal_fee?: PayPalMoney;
    net_amount?: PayPalMoney;
  };
}

/** PayPal's fee on a capture in minor units, when it is reported in the capture's own currency. */
export function captureFeeMinor(capture: {
  amount?: { currency_code?: string };
  seller_receivable_breakdown?: PayPalCapture['seller_receivable_breakdown'];
}): number {
  const fee = capture.seller_receivable_breakdown?.paypal_fee;
  if (!fee?.value || (capture.amount && fee.currency_code !== capture.amount.currency_code)) return 0;
  return Math.round(Number(fee.value) * 100) || 0;
}

export interface PayPalOrder {
  id: string;
  status: string;
  links?: PayPalLink[];
  purchase_units?: { custom_id?: string; payments?: { captures?: PayPalCapture[] } }[];
}

export interface PayPalSubscription {
  id: string;
  status: string;
  plan_id?: string;
  custom_id?: string;
  links?: PayPalLink[];
  billing_info?: {
    next_billing_time?: string;
    cycle_executions?: { tenure_type: string; cycles_completed: number }[];
    last_payment?: { amount?: PayPalMoney; time?: string };
  };
}

/** One payment of a subscription (GET /v1/billing/subscriptions/{id}/transactions): its sale. */
export interface PayPalSubscriptionTransaction {
  /** The sale id (what PAYMENT.SALE.* events and refunds name). */
  id: string;
  status: string;
  time?: string;
  amount_with_breakdown?: { gross_amount?: PayPalMoney; fee_amount?: PayPalMoney; net_amount?: PayPalMoney };
}

export interface PayPalPlan {
  id: string;
  name: string;
  status: string;
  product_id?: string;
}

/** PayPal answered non-2xx; `name` is PayPal's error name (e.g. UNPROCESSABLE_ENTITY), `issue` its first detail. */
export class PayPalApiError extends Error {
  readonly status: number;
  readonly paypalName: string;
  readonly issue: string | undefined;

  constructor(status: number, paypalName: string, message: string, issue?: string) {
    super(`PayPal ${paypalName}: ${message}${issue ? ` (${issue})` : ''}`);
    this.name = 'PayPalApiError';
    this.status = status;
    this.paypalName = paypalName;
    this.issue = issue;
  }
}

/** The part of a PayPal webhook event Berth reads. */
export interface PayPalEvent {
  id?: string;
  event_type?: string;
  resource?: {
    id?: string;
    custom_id?: string;
    billing_agreement_id?: string;
    status?: string;
    amount?: { value?: string; currency_code?: string; total?: string; currency?: string };
    supplementary_data?: { related_ids?: { capture_id?: string } };
    links?: { href: string; rel: string }[];
    /** A capture: PayPal's fee in what the merchant receives. */
    seller_receivable_breakdown?: PayPalCapture['seller_receivable_breakdown'];
    /** A sale (v1, subscriptions): PayPal's fee. */
    transaction_fee?: { value?: string; currency?: string };
    /** A sale's refund (v1): the refunded sale. */
    sale_id?: string;
  };
}

/** What an event is about: the capture, sale, subscription or refund it names. */
export type PayPalEventResource = NonNullable<PayPalEvent['resource']>;

/** The five headers PayPal signs a webhook delivery with. */
export const WEBHOOK_HEADERS = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
} as const;

export type WebhookSignature = Record<keyof typeof WEBHOOK_HEADERS, string>;

export const linkOf = (links: PayPalLink[] | undefined, ...rels: string[]): string | undefined =>
  rels.map((rel) => links?.find((l) => l.rel === rel)?.href).find((href) => href !== undefined);

/** Refresh a token this long before PayPal says it expires. */
const TOKEN_MARGIN_MS = 60_000;

/**
 * How every PayPal call travels: an OAuth access token (client credentials, cached until shortly before it
 * expires, forgotten on a 401), JSON bodies, PayPal's idempotency header on POSTs, and PayPalApiError for
 * any non-2xx answer.
 */
function payPalTransport(config: PayPalConfig, now: () => Date) {
  const base = config.apiBase.replace(/\/+$/, '');
  let token: { value: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function fetchToken(): Promise<string> {
    const basic = Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64');
    const res = await fetch(`${base}/v1/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'grant_type=client_credentials',
    });
    const body = (await res.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    };
    if (!res.ok || !body.access_token)
      throw new PayPalApiError(
        res.status,
        body.error ?? 'AUTHENTICATION_FAILURE',
        body.error_description ?? 'no token',
      );
    token = { value: body.access_token, expiresAt: now().getTime() + (body.expires_in ?? 0) * 1000 };
    return token.value;
  }

  /** The cached access token, fetched once per expiry (concurrent callers share one request). */
  async function accessToken(): Promise<string> {
    if (token && token.expiresAt - TOKEN_MARGIN_MS > now().getTime()) return token.value;
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  }

  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; rawBody?: string; requestId?: string } = {},
  ): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${await accessToken()}`,
      accept: 'application/json',
    };
    let body: string | undefined;
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      headers.prefer = 'return=representation';
      body = options.rawBody ?? JSON.stringify(options.body ?? {});
      // Idempotency: PayPal answers a repeated request id with the first answer instead of acting twice.
      headers['paypal-request-id'] =
        options.requestId ?? createHash('sha256').update(`${path}\n${body}`).digest('hex');
    }
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const err = (parsed ?? {}) as { name?: string; message?: string; details?: { issue?: string }[] };
      if (res.status === 401) token = undefined;
      throw new PayPalApiError(
        res.status,
        err.name ?? `HTTP_${res.status}`,
        err.message ?? res.statusText,
        err.details?.[0]?.issue,
      );
    }
    return parsed as T;
  }

  return { accessToken, call };
}

/** PayPal's endpoints Berth uses, each one call through the transport. */
export function createPayPalClient(config: PayPalConfig, now: () => Date = () => new Date()) {
  const { accessToken, call } = payPalTransport(config, now);
  return {
    accessToken,

    createOrder: (body: unknown, requestId: string) =>
      call<PayPalOrder>('POST', '/v2/checkout/orders', { body, requestId }),

    captureOrder: (id: string, requestId: string) =>
      call<PayPalOrder>('POST', `/v2/checkout/orders/${encodeURIComponent(id)}/capture`, { requestId }),

    async getProduct(id: string): Promise<{ id: string } | undefined> {
      try {
        return await call<{ id: string }>('GET', `/v1/catalogs/products/${encodeURIComponent(id)}`);
      } catch (err) {
        if (err instanceof PayPalApiError && err.status === 404) return undefined;
        throw err;
      }
    },

    createProduct: (body: { id: string; name: string; type: string; category?: string }) =>
      call<{ id: string }>('POST', '/v1/catalogs/products', { body, requestId: `product-${body.id}` }),

    async listPlans(productId: string): Promise<PayPalPlan[]> {
      const plans: PayPalPlan[] = [];
      for (let page = 1; page <= 20; page += 1) {
        const res = await call<{ plans?: PayPalPlan[]; total_pages?: number }>(
          'GET',
          `/v1/billing/plans?product_id=${encodeURIComponent(productId)}&page_size=20&page=${page}&total_required=true`,
        );
        plans.push(...(res.plans ?? []));
        if (!res.plans?.length || page >= (res.total_pages ?? 1)) break;
      }
      return plans;
    },

    createPlan: (body: unknown, requestId: string) =>
      call<PayPalPlan>('POST', '/v1/billing/plans', { body, requestId }),

    createSubscription: (body: unknown, requestId: string) =>
      call<PayPalSubscription>('POST', '/v1/billing/subscriptions', { body, requestId }),

    getSubscription: (id: string) =>
      call<PayPalSubscription>('GET', `/v1/billing/subscriptions/${encodeURIComponent(id)}`),

    /** A subscription's payments between two moments (PayPal asks for both). */
    async subscriptionTransactions(
      id: string,
      from: Date,
      to: Date,
    ): Promise<PayPalSubscriptionTransaction[]> {
      const query = new URLSearchParams({ start_time: from.toISOString(), end_time: to.toISOString() });
      const answer = await call<{ transactions?: PayPalSubscriptionTransaction[] }>(
        'GET',
        `/v1/billing/subscriptions/${encodeURIComponent(id)}/transactions?${query}`,
      );
      return answer.transactions ?? [];
    },

    async cancelSubscription(id: string, reason: string): Promise<void> {
      await call<undefined>('POST', `/v1/billing/subscriptions/${encodeURIComponent(id)}/cancel`, {
        body: { reason },
        requestId: `cancel-${id}`,
      });
    },

    /**
     * Asks PayPal whether a webhook delivery is genuine. The event goes back byte for byte (re-serialising
     * it could change what was signed); the request id is derived from the whole body, so a replayed
     * transmission with another body is verified afresh.
     */
    async verifyWebhookSignature(signature: WebhookSignature, webhookId: string, rawEvent: string) {
      const head = JSON.stringify({ ...signature, webhook_id: webhookId });
      const rawBody = `${head.slice(0, -1)},"webhook_event":${rawEvent}}`;
      const res = await call<{ verification_status?: string }>(
        'POST',
        '/v1/notifications/verify-webhook-signature',
        { rawBody },
      );
      return res.verification_status === 'SUCCESS';
    },
  };
}

export type PayPalClient = ReturnType<typeof createPayPalClient>;
