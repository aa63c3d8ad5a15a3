import type { Db } from '../../db/database.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { CheckoutProvider } from './checkout-provider.ts';
import type { ConfiguredProviders } from './payment-settings.ts';
import type { PaymentsConfig } from './payments.config.ts';
import type { CheckoutProviderId, RenewingProvider } from './payments.service.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

export interface ProviderDeps {
  db: Db;
  now: () => Date;
  subscriptions: SubscriptionsService;
  notifications: Pick<NotificationsService, 'notify'>;
  publicUrl: string;
}

export interface PaymentProviders {
  configured: ConfiguredProviders;
  checkout: Partial<Record<CheckoutProviderId, CheckoutProvider>>;
  renewing: Partial<Record<'stripe' | 'paypal_business', RenewingProvider>>;
  webhooks: { stripe?: WebhookReceiver; paypal?: WebhookReceiver };
}

/** The providers this server has keys for, each behind the interfaces the payments service uses. */
export function createPaymentProviders(config: PaymentsConfig, deps: ProviderDeps): PaymentProviders {
  void deps;
  return {
    configured: { stripe: config.stripe !== undefined, paypal: config.paypal !== undefined },
    checkout: {},
    renewing: {},
    webhooks: {},
  };
}
