// What a payment provider (Stripe, PayPal, MetaMask) is to the payments module: the dependencies each is
// built with, and the interfaces the payments service drives them through. Providers import this file,
// never providers.ts or payments.service.ts, so no import runs in a circle.
import type { Db } from '../../db/database.ts';
import type { PaymentOrderRow, PaymentProviderId } from '../../db/tables/payments.ts';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import type { LogLine } from '../../lib/error-reference.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { PaymentListener } from './payment-listener.ts';
import type { StoredPaymentSettings } from './payment-settings.ts';

export interface ProviderDeps {
  db: Db;
  now: () => Date;
  subscriptions: SubscriptionsService;
  notifications: Pick<NotificationsService, 'notify'>;
  /** Origin of the web app (result pages) and of the API's return routes. */
  publicUrl: string;
  /** Where failures that answer no error (a redirect to a result page) are logged; absent: stderr. */
  errorLog?: LogLine;
  /** Told of every recorded payment and refund (affiliate commissions); absent: nobody. */
  listener?: PaymentListener;
}

/** Where the provider sends the browser back to. */
export interface ReturnUrls {
  /** Origin of the web app, e.g. http://localhost:8080 (also the origin of the API's return routes). */
  publicUrl: string;
  /** `/payment-success?tx=` (the provider's transaction id is appended by the provider adapter). */
  success: (tx: string) => string;
  /** `/payment-cancelled?reason=cancelled`. */
  cancelled: string;
  /** `/payment-error?reason=...`. */
  failed: (reason: 'incomplete' | 'server_error' | 'other') => string;
}

export interface CheckoutInput {
  /** The pending order (kind, plan, cycle, amount, currency) the payment is for. */
  order: PaymentOrderRow;
  user: { id: string; email: string; username: string };
  /** The user's subscription row at the time of the attempt (provider, provider ids, add-ons). */
  subscription: SubscriptionRow;
  settings: StoredPaymentSettings;
  urls: ReturnUrls;
}

export interface CheckoutResult {
  /** Where the browser goes next: the provider's page, or a result page when nothing is left to approve. */
  redirectUrl: string;
  /** The provider's id for this attempt (Checkout Session, PayPal order or subscription), stored on the order. */
  providerRef: string | null;
}

/** A provider that can take a payment for an order by sending the browser to its page. */
export interface CheckoutProvider {
  checkout(input: CheckoutInput): Promise<CheckoutResult>;
}

export type CheckoutProviderId = Exclude<PaymentProviderId, 'metamask'>;

/** What a provider that renews subscriptions can do to one (Stripe, PayPal). */
export interface RenewingProvider {
  /** Stops (or restarts) renewal at the end of the current period. */
  setCancelAtPeriodEnd(sub: SubscriptionRow, cancel: boolean): Promise<void>;
  /** Ends the provider's subscription now: nothing renews or charges again (an admin revoked the plan). */
  stopRenewal(sub: SubscriptionRow): Promise<void>;
  /** Drops the additional instances from the renewing subscription (back to the base Starter price). */
  removeAddons?(sub: SubscriptionRow): Promise<void>;
}

export function returnUrls(publicUrl: string): ReturnUrls {
  const origin = publicUrl.replace(/\/+$/, '');
  return {
    publicUrl: origin,
    success: (tx) => `${origin}/payment-success?tx=${encodeURIComponent(tx)}`,
    cancelled: `${origin}/payment-cancelled?reason=cancelled`,
    failed: (reason) => `${origin}/payment-error?reason=${reason}`,
  };
}

/** Takes a provider's webhook delivery: verifies it, stores the event once and applies it. */
export interface WebhookReceiver {
  /**
   * `rawBody` is the body exactly as received (signatures cover its bytes). Throws ValidationError when
   * the signature is missing or wrong; answers `duplicate` when the event had been stored before.
   */
  receive(rawBody: string, headers: Headers): Promise<{ duplicate: boolean }>;
}
