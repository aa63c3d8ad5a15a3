import { createRouter } from '../../../lib/create-router.ts';
import type { PaymentsConfig } from '../payments.config.ts';
import {
  type CheckoutProvider,
  type ProviderDeps,
  type RenewingProvider,
  returnUrls,
  type WebhookReceiver,
} from '../provider-contract.ts';
import * as routes from './paypal.routes.ts';
import { createPayPalService } from './paypal.service.ts';
import { createPayPalWebhook } from './paypal.webhooks.ts';
import { createPayPalClient } from './paypal-client.ts';

export interface PayPalModule {
  /** PayPal Business: a PayPal subscription (recurring) per plan purchase. */
  business: CheckoutProvider & RenewingProvider;
  /** PayPal (standard): a one-off Orders v2 payment for one period. */
  standard: CheckoutProvider;
  webhook: WebhookReceiver;
  /** GET /api/payments/paypal/return and /api/payments/paypal/cancel (where PayPal sends the browser back). */
  router: ReturnType<typeof createRouter>;
}

/** PayPal, wired: one client (and plan cache) for the service, the webhook and the return routes. */
export function createPayPal(
  config: NonNullable<PaymentsConfig['paypal']>,
  deps: ProviderDeps,
): PayPalModule {
  const client = createPayPalClient(config);
  const service = createPayPalService(client, returnUrls(deps.publicUrl), deps);
  const webhook = createPayPalWebhook(client, config.webhookId, service, deps);
  const router = createRouter()
    .openapi(routes.paypalReturn, async (c) =>
      c.redirect(await service.handleReturn(c.req.valid('query'), c.var.requestId), 302),
    )
    .openapi(routes.paypalCancel, async (c) =>
      c.redirect(await service.handleCancel(c.req.valid('query')), 302),
    );
  return { business: service.business, standard: service.standard, webhook, router };
}
