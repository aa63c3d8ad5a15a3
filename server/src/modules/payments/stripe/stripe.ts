import { createRouter } from '../../../lib/create-router.ts';
import type { StripeConfig } from '../payments.config.ts';
import {
  type CheckoutProvider,
  type ProviderDeps,
  type RenewingProvider,
  returnUrls,
  type WebhookReceiver,
} from '../provider-contract.ts';
import { stripeContext } from './stripe.context.ts';
import * as routes from './stripe.routes.ts';
import { createStripeService } from './stripe.service.ts';
import { createStripeWebhook } from './stripe.webhooks.ts';
import { createStripeClient } from './stripe-client.ts';
import { createStripeRenewal } from './stripe-renewal.service.ts';

export interface StripeModule {
  checkout: CheckoutProvider;
  renewing: RenewingProvider;
  webhook: WebhookReceiver;
  /** POST /api/payments/stripe/portal. */
  router: ReturnType<typeof createRouter>;
}

/**
 * Stripe, wired: one client (and price cache) and one shared context (stripe.context.ts: our row says what
 * Stripe's subscription says) for the checkout, the renewal controls, the webhook and the portal route.
 */
export function createStripe(config: StripeConfig, deps: ProviderDeps): StripeModule {
  const stripe = createStripeClient(config);
  const ctx = stripeContext(stripe, deps);
  const service = createStripeService(stripe, returnUrls(deps.publicUrl), ctx, deps);
  const webhook = createStripeWebhook(stripe, config.webhookSecret, ctx, deps);
  const router = createRouter().openapi(routes.portal, async (c) =>
    c.json({ url: await service.portalUrl(c.var.user.id) }, 200),
  );
  return { checkout: service.checkout, renewing: createStripeRenewal(stripe, ctx), webhook, router };
}
