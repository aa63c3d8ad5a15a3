import type { Db } from '../../db/database.ts';
import { ConflictError, NotFoundError, PaymentProviderError } from '../../lib/errors.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { type ConfiguredProviders, methodAvailable, readPaymentSettings } from './payment-settings.ts';
import { findBuyer, updateOrder } from './payments.ledger.ts';
import type { CreatePaymentRequest, CreatePaymentResult } from './payments.schemas.ts';
import { type CheckoutProvider, type CheckoutProviderId, returnUrls } from './provider-contract.ts';
import { openOrder, PAYMENT_METHOD_UNAVAILABLE } from './purchase.ts';

const CREATE_PAYMENT_FAILED = 'Failed to create payment URL';

interface PaymentCheckoutDeps {
  db: Db;
  now: () => Date;
  subscriptions: Pick<SubscriptionsService, 'lockRow' | 'countInstances'>;
  configured: ConfiguredProviders;
  checkout: Partial<Record<CheckoutProviderId, CheckoutProvider>>;
  publicUrl: string;
}

/**
 * Paying with Stripe or PayPal (MetaMask has its own flow): the method and the plan rules are checked, a
 * pending order recorded, and the provider's page answered for the browser to go to. A provider that
 * fails leaves the order failed.
 */
export function createPaymentCheckout(deps: PaymentCheckoutDeps) {
  const { db, now, subscriptions, configured } = deps;
  const urls = returnUrls(deps.publicUrl);

  return {
    /**
     * Starts a payment: checks the method and the plan rules,
     * records a pending order and answers the provider's page to send the browser to.
     */
    async createPayment(userId: string, request: CreatePaymentRequest): Promise<CreatePaymentResult> {
      const provider = request.provider;
      const stored = await readPaymentSettings(db);
      const adapter = deps.checkout[provider];
      if (!methodAvailable(stored, configured, provider) || !adapter)
        throw new ConflictError(PAYMENT_METHOD_UNAVAILABLE);

      const user = await findBuyer(db, userId);
      if (!user) throw new NotFoundError('User not found');

      const { order, subscription } = await db
        .transaction()
        .execute((trx) =>
          openOrder(trx, { now, subscriptions }, { userId, provider, request, settings: stored }),
        );

      try {
        const result = await adapter.checkout({ order, user, subscription, settings: stored, urls });
        await updateOrder(db, order.id, { provider_ref: result.providerRef, updated_at: now() });
        return provider === 'stripe'
          ? { redirectUrl: result.redirectUrl }
          : { redirectUrl: result.redirectUrl, paypalUrl: result.redirectUrl };
      } catch (err) {
        await updateOrder(db, order.id, { status: 'failed', updated_at: now() });
        if (err instanceof ConflictError) throw err;
        throw new PaymentProviderError(CREATE_PAYMENT_FAILED, { cause: err });
      }
    },
  };
}
