import type { Db } from '../../db/database.ts';
import { ConflictError, NotFoundError, PaymentProviderError, ValidationError } from '../../lib/errors.ts';
import type { TokenService } from '../../lib/tokens.ts';
import { DOWNGRADE_BLOCKED_MESSAGE } from '../subscriptions/billing-rules.ts';
import { PLANS, standingOf } from '../subscriptions/plan-rules.ts';
import type { PaymentSettings } from '../subscriptions/subscriptions.schemas.ts';
import { factsOf, type SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { renderInvoiceHtml } from './invoice-html.ts';
import {
  type ConfiguredProviders,
  METAMASK_RECEIVER,
  methodAvailable,
  type PaymentSettingsStore,
  publicPaymentSettings,
  readPaymentSettings,
  type StoredPaymentSettings,
} from './payment-settings.ts';
import { findBuyer, findInvoiceWithBuyer, listInvoices, updateOrder } from './payments.ledger.ts';
import type {
  AdminPaymentSettings,
  AdminPaymentSettingsUpdate,
  BillingHistory,
  CreatePaymentRequest,
  CreatePaymentResult,
} from './payments.schemas.ts';
import {
  type CheckoutProvider,
  type CheckoutProviderId,
  type RenewingProvider,
  returnUrls,
} from './provider-contract.ts';
import { openOrder, PAYMENT_METHOD_UNAVAILABLE } from './purchase.ts';

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

const CREATE_PAYMENT_FAILED = 'Failed to create payment URL';
const NO_ADDON_TO_REMOVE = 'There is no additional instance to remove.';
const ADDON_REMOVAL_BY_SUPPORT =
  'Your additional instance is billed through PayPal. Contact support to remove it.';
const INVOICE_LINK_TTL_SECONDS = 60 * 60;

/** The result pages of the web app. */
export function createPaymentsService(deps: PaymentsDeps) {
  const { db, now, subscriptions, configured } = deps;
  const urls = returnUrls(deps.publicUrl);

  async function settings(): Promise<PaymentSettings> {
    return publicPaymentSettings(await deps.settingsStore.read(), configured);
  }

  function adminView(s: StoredPaymentSettings): AdminPaymentSettings {
    return {
      currency: s.currency,
      prices: s.prices,
      backupDays: s.backupDays,
      methods: {
        stripe: {
          enabled: s.enabled.stripe,
          configured: configured.stripe,
          available: methodAvailable(s, configured, 'stripe'),
        },
        paypalBusiness: {
          enabled: s.enabled.paypal_business,
          configured: configured.paypal,
          available: methodAvailable(s, configured, 'paypal_business'),
        },
        paypalStandard: {
          enabled: s.enabled.paypal_standard,
          configured: configured.paypal,
          available: methodAvailable(s, configured, 'paypal_standard'),
        },
        metamask: {
          enabled: s.enabled.metamask,
          configured: s.metamask.receiverAddress !== null,
          available: methodAvailable(s, configured, 'metamask'),
          receiverAddress: s.metamask.receiverAddress,
          chainId: s.metamask.chainId,
        },
      },
    };
  }

  return {
    settings,

    async adminSettings(): Promise<AdminPaymentSettings> {
      return adminView(await deps.settingsStore.read());
    },

    async updateAdminSettings(input: AdminPaymentSettingsUpdate): Promise<AdminPaymentSettings> {
      const current = await readPaymentSettings(db);
      const m = input.methods;
      const next: StoredPaymentSettings = {
        currency: input.currency ?? current.currency,
        prices: { ...current.prices, ...input.prices },
        backupDays: { ...current.backupDays, ...input.backupDays },
        enabled: {
          stripe: m?.stripe?.enabled ?? current.enabled.stripe,
          paypal_business: m?.paypalBusiness?.enabled ?? current.enabled.paypal_business,
          paypal_standard: m?.paypalStandard?.enabled ?? current.enabled.paypal_standard,
          metamask: m?.metamask?.enabled ?? current.enabled.metamask,
        },
        metamask: {
          receiverAddress:
            m?.metamask?.receiverAddress === undefined
              ? current.metamask.receiverAddress
              : m.metamask.receiverAddress,
          chainId: m?.metamask?.chainId === undefined ? current.metamask.chainId : m.metamask.chainId,
        },
      };
      if (next.enabled.metamask) {
        if (next.metamask.receiverAddress === null || !METAMASK_RECEIVER.test(next.metamask.receiverAddress))
          throw new ValidationError(
            'MetaMask needs a receiver address (0x and 40 hex characters) before it is enabled',
          );
        if (next.metamask.chainId === null)
          throw new ValidationError(
            'MetaMask needs a network (Sepolia 0xaa36a7 or Polygon 0x89) before it is enabled',
          );
      }
      await deps.settingsStore.write(next, now());
      return adminView(next);
    },

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

    /**
     * Cancels (or keeps) renewal at the end of the paid period. Stripe and PayPal subscriptions are told
     * first; the flag is kept here for every provider.
     */
    async setCancelAtPeriodEnd(userId: string, cancel: boolean): Promise<void> {
      const row = await subscriptions.row(userId);
      if (!row) throw new NotFoundError('Subscription not found');
      if (standingOf(factsOf(row), now()) !== 'active')
        throw new ConflictError('There is no active subscription to cancel.');
      const renewing =
        row.provider === 'stripe' || row.provider === 'paypal_business'
          ? deps.renewing[row.provider]
          : undefined;
      if (renewing && row.provider_subscription_id) {
        try {
          await renewing.setCancelAtPeriodEnd(row, cancel);
        } catch (err) {
          if (err instanceof ConflictError) throw err;
          throw new PaymentProviderError(
            'The payment provider did not accept the change. Please try again.',
            { cause: err },
          );
        }
      }
      await subscriptions.setCancelAtPeriodEnd(userId, cancel);
    },

    /**
     * Back to plain Starter (the UI confirms first). Refused while more than one
     * instance is in use, with the downgrade message.
     */
    async removeAddons(userId: string): Promise<void> {
      const row = await subscriptions.row(userId);
      if (!row) throw new NotFoundError('Subscription not found');
      if (row.plan !== 'starter' || row.addon_instances === 0) throw new ConflictError(NO_ADDON_TO_REMOVE);
      const used = await subscriptions.countInstances(userId);
      if (used > PLANS.starter.maxInstances)
        throw new ConflictError(DOWNGRADE_BLOCKED_MESSAGE, { instancesUsed: used });
      const renewing =
        row.provider === 'stripe' || row.provider === 'paypal_business'
          ? deps.renewing[row.provider]
          : undefined;
      if (renewing && row.provider_subscription_id) {
        if (!renewing.removeAddons) throw new ConflictError(ADDON_REMOVAL_BY_SUPPORT);
        try {
          await renewing.removeAddons(row);
        } catch (err) {
          if (err instanceof ConflictError) throw err;
          throw new PaymentProviderError(
            'The payment provider did not accept the change. Please try again.',
            { cause: err },
          );
        }
      }
      await subscriptions.setAddonInstances(userId, 0);
    },

    /** Before an admin's revocation: the provider stops charging (502 when it cannot be told). */
    async stopRenewalNow(userId: string): Promise<void> {
      const row = await subscriptions.row(userId);
      if (!row?.provider_subscription_id) return;
      const renewing =
        row.provider === 'stripe' || row.provider === 'paypal_business'
          ? deps.renewing[row.provider]
          : undefined;
      if (!renewing) return;
      try {
        await renewing.stopRenewal(row);
      } catch (err) {
        throw new PaymentProviderError(
          'The payment provider could not cancel the subscription. Please try again.',
          { cause: err },
        );
      }
    },

    async billingHistory(userId: string): Promise<BillingHistory> {
      const rows = await listInvoices(db, userId, 200);
      const invoices = await Promise.all(
        rows.map(async (r) => ({
          id: r.id,
          amount: Number(r.amount),
          currency: r.currency,
          description: r.description,
          date: r.date.toISOString(),
          status: r.status,
          refundedAmount: Number(r.refunded_amount),
          provider: r.provider,
          downloadUrl:
            r.download_url ??
            `${urls.publicUrl}/api/payments/invoices/${r.id}/download?token=${await deps.tokens.signLink(r.id, 'invoice', INVOICE_LINK_TTL_SECONDS)}`,
        })),
      );
      return { invoices };
    },

    /** The HTML invoice a signed download link opens. */
    async invoiceHtml(invoiceId: string, token: string): Promise<string> {
      const subject = await deps.tokens.verifyLink(token, 'invoice');
      if (subject !== invoiceId) throw new NotFoundError('Invoice not found');
      const row = await findInvoiceWithBuyer(db, invoiceId);
      if (!row) throw new NotFoundError('Invoice not found');
      return renderInvoiceHtml({
        number: row.id.slice(0, 8).toUpperCase(),
        date: row.date,
        status: row.status,
        amount: Number(row.amount),
        currency: row.currency,
        description: row.description,
        provider: row.provider,
        providerRef: row.provider_ref,
        billedTo: {
          name: `${row.first_name} ${row.last_name}`,
          company: row.company_name,
          email: row.email,
        },
      });
    },
  };
}
