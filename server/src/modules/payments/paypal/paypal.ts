import { createRouter } from '../../../lib/create-router.ts';
import type { PaymentsConfig } from '../payments.config.ts';
import {
  type CheckoutProvider,
  type ProviderDeps,
  type RenewingProvider,
  returnUrls,
  type WebhookReceiver,
} from '../provider-contract.ts';
import { payPalContext } from './paypal.context.ts';
import * as routes from './paypal.routes.ts';
import { createPayPalService } from './paypal.service.ts';
import { createPayPalWebhook } from './paypal.webhooks.ts';
import { createPayPalClient } from './paypal-client.ts';
import { createPayPalReturn } from './paypal-return.ts';

export interface PayPalModule {
  /** PayPal Business: a PayPal subscription (recurring) per plan purchase. */
  business: CheckoutProvider & RenewingProvider;
  /** PayPal (standard): a one-off Orders v2 payment for one period. */
  standard: CheckoutProvider;
  webhook: WebhookReceiver;
  /** GET /api/payments/paypal/return and /api/payments/paypal/cancel (where PayPal sends the browser back). */
  router: ReturnType<typeof createRouter>;
}

/**
 * PayPal, wired: one client (and plan cache) and one shared context (paypal.context.ts: completing an
 * order once) for the checkout, the webhook and the return routes.
 */
export function createPayPal(
  config: NonNullable<PaymentsConfig['paypal']>,
  deps: ProviderDeps,
): PayPalModule {
  const client = createPayPalClient(config);
  const urls = returnUrls(deps.publicUrl);
  const ctx = payPalContext(client, deps);
  const service = createPayPalService(client, urls, deps.db, ctx);
  const back = createPayPalReturn(client, urls, ctx, deps);
  const webhook = createPayPalWebhook(client, config.webhookId, ctx, deps);
  const router = createRouter()
    .openapi(routes.paypalReturn, async (c) =>
      c.redirect(await back.handleReturn(c.req.valid('query'), c.var.requestId), 302),
    )
    .openapi(routes.paypalCancel, async (c) =>
      c.redirect(await back.handleCancel(c.req.valid('query')), 302),
    );
  return { business: service.business, standard: service.standard, webhook, router };
}
