import { afterAll, beforeAll } from 'vitest';
import { type FakeStripe, startFakeStripe, toAppWebhook } from './fake-stripe.ts';

export interface StripeFixture {
  /** The local fake Stripe (started once the file's tests begin). */
  readonly fake: FakeStripe;
  /** The app's `payments` setting that sends its Stripe calls to the fake. */
  payments(): { stripe: { secretKey: string; webhookSecret: string; apiBase: string } };
  /** Sends the fake's webhooks (signed with the file's secret) to this app's webhook route. */
  connect(app: Parameters<typeof toAppWebhook>[0]): void;
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
  };
}
