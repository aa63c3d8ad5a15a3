import { createRouter } from '../../../lib/create-router.ts';
import type { StripeConfig } from '../payments.config.ts';
import {
  type CheckoutProvider,
  type ProviderDeps,
  type RenewingProvider,
  returnUrls,
  type WebhookReceiver,
} from '../provider-contract.ts';
import * as routes from './stripe.routes.ts';
import { createStripeService } from './stripe.service.ts';
import { createStripeWebhook } from './stripe.webhooks.ts';
import { createStripeClient } from './stripe-client.ts';

export interface StripeModule {
  checkout: CheckoutProvider;
  renewing: RenewingProvider;
  webhook: WebhookReceiver;
  /** POST /api/payments/stripe/portal. */
  router: ReturnType<typeof createRouter>;
}

/** Stripe, wired: one client (and price cache) for the service, the webhook and the portal route. */
export function createStripe(config: StripeConfig, deps: ProviderDeps): StripeModule {
  const stripe = createStripeClient(config);
  const service = createStripeService(stripe, returnUrls(deps.publicUrl), deps);
  const webhook = createStripeWebhook(stripe, config.webhookSecret, service, deps);
  const router = createRouter().openapi(routes.portal, async (c) =>
    c.json({ url: await service.portalUrl(c.var.user.id) }, 200),
  );
  return { checkout: service.checkout, renewing: service.renewing, webhook, router };
}
