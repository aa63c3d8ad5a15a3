// STUB: replaced by the Stripe implementation.
import type { createRouter } from '../../../lib/create-router.ts';
import type { CheckoutProvider } from '../checkout-provider.ts';
import type { PaymentsConfig } from '../payments.config.ts';
import type { RenewingProvider } from '../payments.service.ts';
import type { ProviderDeps } from '../providers.ts';
import type { WebhookReceiver } from '../webhook-receiver.ts';

export interface StripeModule {
  checkout: CheckoutProvider;
  renewing: RenewingProvider;
  webhook: WebhookReceiver;
  /** POST /api/payments/stripe/portal. */
  router: ReturnType<typeof createRouter>;
}

export function createStripe(
  config: NonNullable<PaymentsConfig['stripe']>,
  deps: ProviderDeps,
): StripeModule {
  void config;
  void deps;
  throw new Error('Stripe is not implemented yet');
}
