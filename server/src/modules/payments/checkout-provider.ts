import type { PaymentOrderRow } from '../../db/tables/payments.ts';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import type { StoredPaymentSettings } from './payment-settings.ts';

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
