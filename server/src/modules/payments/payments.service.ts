import type { Db } from '../../db/database.ts';
import type { TokenService } from '../../lib/tokens.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { createInvoicesService } from './invoices.service.ts';
import { createPaymentCheckout } from './payment-checkout.service.ts';
import { createPaymentSettingsService } from './payment-settings.service.ts';
import type { ConfiguredProviders, PaymentSettingsStore } from './payment-settings.ts';
import type { CheckoutProvider, CheckoutProviderId, RenewingProvider } from './provider-contract.ts';
import { createRenewalControls } from './renewal-controls.service.ts';

export interface PaymentsDeps {
  db: Db;
  now: () => Date;
  tokens: Pick<TokenService, 'signLink' | 'verifyLink'>;
  subscriptions: Pick<
    SubscriptionsService,
    'lockRow' | 'row' | 'countInstances' | 'setCancelAtPeriodEnd' | 'setAddonInstances'
  >;
  configured: ConfiguredProviders;
  settingsStore: PaymentSettingsStore;
  checkout: Partial<Record<CheckoutProviderId, CheckoutProvider>>;
  renewing: Partial<Record<'stripe' | 'paypal_business', RenewingProvider>>;
  publicUrl: string;
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;

/**
 * Payments as the routes and the admin see them, one service per concern, each with only what it needs:
 * the billing settings (payment-settings.service.ts), paying (payment-checkout.service.ts), renewal
 * controls (renewal-controls.service.ts) and invoices (invoices.service.ts). The providers themselves
 * (Stripe, PayPal, MetaMask) are built in providers.ts.
 */
export function createPaymentsService(deps: PaymentsDeps) {
  return {
    ...createPaymentSettingsService(deps),
    ...createPaymentCheckout(deps),
    ...createRenewalControls(deps),
    ...createInvoicesService(deps),
  };
}
