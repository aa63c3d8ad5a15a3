import { afterAll, beforeAll, expect } from 'vitest';
import { call, type TestApp } from './create-test-app.ts';
import { type FakeStripe, startFakeStripe, toAppWebhook } from './fake-stripe.ts';

export interface StripeFixture {
  /** The local fake Stripe (started once the file's tests begin). */
  readonly fake: FakeStripe;
  /** The app's `payments` setting that sends its Stripe calls to the fake. */
  payments(): { stripe: { secretKey: string; webhookSecret: string; apiBase: string } };
  /** Sends the fake's webhooks (signed with the file's secret) to this app's webhook route. */
  connect(app: Parameters<typeof toAppWebhook>[0]): void;
  /**
   * `token`'s user pays for a plan through Stripe Checkout: the app answers the checkout's URL, the fake
   * completes it and delivers Stripe's events to the app (each answered 200). Answers the Stripe
   * subscription and invoice ids and the events (to resend).
   */
  subscribe(
    app: TestApp,
    token: string,
    plan?: 'starter' | 'pro',
    billingCycle?: 'monthly' | 'yearly',
  ): Promise<{
    subId: string;
    invoiceId: string;
    events: ReturnType<FakeStripe['completeCheckout']>['events'];
  }>;
}

/**
 * One local fake Stripe for a test file: started before the file's tests, closed after them. A file
 * builds its app with `payments: stripe.payments()` and then calls `stripe.connect(app)`.
 */
export function fakeStripeForFile(webhookSecret: string, secretKey = 'sk_test_berth'): StripeFixture {
  let running: FakeStripe | undefined;
  beforeAll(async () => {
    running = await startFakeStripe({ webhookSecret });
  });
  afterAll(() => running?.close());
  const started = (): FakeStripe => {
    if (!running) throw new Error('the fake Stripe starts in beforeAll: use it inside hooks and tests');
    return running;
  };
  return {
    get fake() {
      return started();
    },
    payments: () => ({ stripe: { secretKey, webhookSecret, apiBase: started().url } }),
    connect: (app) => {
      started().deliverTo = toAppWebhook(app);
    },
    subscribe: async (app, token, plan = 'pro', billingCycle = 'monthly') => {
      const res = await call(app, 'POST', '/api/payments/create-paypal-payment', {
        token,
        body: { provider: 'stripe', plan, billingCycle },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      const fake = started();
      const { subscription, invoice, events } = fake.completeCheckout(
        String(res.json.redirectUrl).split('/').pop() ?? '',
      );
      for (const event of events) expect(await fake.deliver(event)).toBe(200);
      return { subId: String(subscription.id), invoiceId: String(invoice.id), events };
    },
  };
}
