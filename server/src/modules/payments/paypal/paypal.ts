// STUB: replaced by the PayPal implementation.
import type { createRouter } from '../../../lib/create-router.ts';
import type { CheckoutProvider } from '../checkout-provider.ts';
import type { PaymentsConfig } from '../payments.config.ts';
import type { RenewingProvider } from '../payments.service.ts';
import type { ProviderDeps } from '../providers.ts';
import type { WebhookReceiver } from '../webhook-receiver.ts';

export interface PayPalModule {
  /** PayPal Business: a PayPal subscription (recurring) per plan purchase. */
  business: CheckoutProvider & RenewingProvider;
  /** PayPal (standard): a one-off Orders v2 payment for one period. */
  standard: CheckoutProvider;
  webhook: WebhookReceiver;
  /** GET /api/payments/paypal/return and /api/payments/paypal/cancel (where PayPal sends the browser back). */
  router: ReturnType<typeof createRouter>;
}

export function createPayPal(
  config: NonNullable<PaymentsConfig['paypal']>,
  deps: ProviderDeps,
): PayPalModule {
  void config;
  void deps;
  throw new Error('PayPal is not implemented yet');
}
