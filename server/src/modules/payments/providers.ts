import type { createRouter } from '../../lib/create-router.ts';
import { createMetaMask } from './metamask/metamask.ts';
import type { ConfiguredProviders } from './payment-settings.ts';
import type { PaymentsConfig } from './payments.config.ts';
import { createPayPal } from './paypal/paypal.ts';
import type {
  CheckoutProvider,
  CheckoutProviderId,
  ProviderDeps,
  RenewingProvider,
  WebhookReceiver,
} from './provider-contract.ts';
import { createStripe } from './stripe/stripe.ts';

export interface PaymentProviders {
  configured: ConfiguredProviders;
  checkout: Partial<Record<CheckoutProviderId, CheckoutProvider>>;
  renewing: Partial<Record<'stripe' | 'paypal_business', RenewingProvider>>;
  webhooks: { stripe?: WebhookReceiver; paypal?: WebhookReceiver };
  /** Provider-specific routes (portal, PayPal return, MetaMask submission and review). */
  routers: ReturnType<typeof createRouter>[];
  /** On-chain checks of submitted MetaMask transactions (background.ts runs it on an interval). */
  verifyMetaMaskPayments: () => Promise<number>;
}

/** The providers this server has keys for, each behind the interfaces the payments service uses. */
export function createPaymentProviders(config: PaymentsConfig, deps: ProviderDeps): PaymentProviders {
  const stripe = config.stripe ? createStripe(config.stripe, deps) : undefined;
  const paypal = config.paypal ? createPayPal(config.paypal, deps) : undefined;
  const metamask = createMetaMask(config.ethereum, deps);
  return {
    configured: { stripe: stripe !== undefined, paypal: paypal !== undefined },
    checkout: {
      ...(stripe && { stripe: stripe.checkout }),
      ...(paypal && { paypal_business: paypal.business, paypal_standard: paypal.standard }),
    },
    renewing: {
      ...(stripe && { stripe: stripe.renewing }),
      ...(paypal && { paypal_business: paypal.business }),
    },
    webhooks: { stripe: stripe?.webhook, paypal: paypal?.webhook },
    routers: [stripe?.router, paypal?.router, metamask.router].filter((r) => r !== undefined),
    verifyMetaMaskPayments: metamask.verifyPending,
  };
}
