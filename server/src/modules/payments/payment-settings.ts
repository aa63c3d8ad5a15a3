import type { DbOrTx } from '../../db/database.ts';
import type { MetaMaskChainId, PaymentProviderId, PaymentSettingsRow } from '../../db/tables/payments.ts';
import { currencySymbol, NO_PAYMENT_METHODS_MESSAGE, type PaidPlan } from '../subscriptions/billing-rules.ts';
import {
  ADDON_INSTANCE_MONTHLY_PRICE,
  BACKUP_DAYS,
  PLANS,
  YEARLY_DISCOUNT,
  yearlyPrice,
} from '../subscriptions/plan-rules.ts';
import type { PaymentSettings } from '../subscriptions/subscriptions.schemas.ts';

/** Which providers this server has keys for (from the environment); a method needs both keys and the admin's switch. */
export interface ConfiguredProviders {
  stripe: boolean;
  paypal: boolean;
}

/** What an admin sets (one row; the defaults until one is saved). */
export interface StoredPaymentSettings {
  currency: 'USD' | 'EUR' | 'GBP';
  prices: { starter: number; pro: number; addonInstance: number };
  /** Days each plan keeps its instances' backups (plan-rules.ts' BACKUP_DAYS until changed). */
  backupDays: { starter: number; pro: number };
  enabled: Record<PaymentProviderId, boolean>;
  metamask: { receiverAddress: string | null; chainId: MetaMaskChainId | null };
}

export const DEFAULT_PAYMENT_SETTINGS: StoredPaymentSettings = {
  currency: 'USD',
  prices: {
    starter: PLANS.starter.monthlyPrice,
    pro: PLANS.pro.monthlyPrice,
    addonInstance: ADDON_INSTANCE_MONTHLY_PRICE,
  },
  backupDays: BACKUP_DAYS,
  enabled: { stripe: true, paypal_business: true, paypal_standard: true, metamask: false },
  metamask: { receiverAddress: null, chainId: null },
};

export const METAMASK_RECEIVER = /^0x[0-9a-fA-F]{40}$/;

function fromRow(row: PaymentSettingsRow): StoredPaymentSettings {
  return {
    currency: row.currency,
    prices: {
      starter: Number(row.starter_price),
      pro: Number(row.pro_price),
      addonInstance: Number(row.addon_price),
    },
    backupDays: { starter: row.starter_backup_days, pro: row.pro_backup_days },
    enabled: {
      stripe: row.stripe_enabled,
      paypal_business: row.paypal_business_enabled,
      paypal_standard: row.paypal_standard_enabled,
      metamask: row.metamask_enabled,
    },
    metamask: { receiverAddress: row.metamask_receiver, chainId: row.metamask_chain_id },
  };
}

export async function readPaymentSettings(db: DbOrTx): Promise<StoredPaymentSettings> {
  const row = await db.selectFrom('payment_settings').selectAll().where('id', '=', 1).executeTakeFirst();
  return row ? fromRow(row) : DEFAULT_PAYMENT_SETTINGS;
}

export async function writePaymentSettings(db: DbOrTx, s: StoredPaymentSettings, at: Date): Promise<void> {
  const values = {
    currency: s.currency,
    starter_price: s.prices.starter,
    pro_price: s.prices.pro,
    addon_price: s.prices.addonInstance,
    starter_backup_days: s.backupDays.starter,
    pro_backup_days: s.backupDays.pro,
    stripe_enabled: s.enabled.stripe,
    paypal_business_enabled: s.enabled.paypal_business,
    paypal_standard_enabled: s.enabled.paypal_standard,
    metamask_enabled: s.enabled.metamask,
    metamask_receiver: s.metamask.receiverAddress,
    metamask_chain_id: s.metamask.chainId,
    updated_at: at,
  };
  await db
    .insertInto('payment_settings')
    .values({ id: 1, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}

/** Reads the settings through a short cache (they are read on every status and profile answer). */
export interface PaymentSettingsStore {
  read(): Promise<StoredPaymentSettings>;
  write(settings: StoredPaymentSettings, at: Date): Promise<void>;
}

/**
 * The settings with a cache of `ttlMs`: this process sees its own writes at once; other server
 * processes within `ttlMs`. Checkouts read the table directly.
 */
export function createPaymentSettingsStore(
  db: DbOrTx,
  ttlMs = 2_000,
  clock = Date.now,
): PaymentSettingsStore {
  let cached: { value: Promise<StoredPaymentSettings>; at: number } | undefined;
  return {
    read() {
      const at = clock();
      if (!cached || at - cached.at > ttlMs) {
        const value = readPaymentSettings(db);
        const entry = { value, at };
        cached = entry;
        // A failed read is not remembered.
        value.catch(() => {
          if (cached === entry) cached = undefined;
        });
      }
      return cached.value;
    },
    async write(settings, at) {
      await writePaymentSettings(db, settings, at);
      cached = { value: Promise.resolve(settings), at: clock() };
    },
  };
}

/** Whether a method can take money now: the admin's switch, and the keys (or receiver) it needs. */
export function methodAvailable(
  s: StoredPaymentSettings,
  configured: ConfiguredProviders,
  provider: PaymentProviderId,
): boolean {
  if (!s.enabled[provider]) return false;
  switch (provider) {
    case 'stripe':
      return configured.stripe;
    case 'paypal_business':
    case 'paypal_standard':
      return configured.paypal;
    case 'metamask':
      return s.metamask.receiverAddress !== null && METAMASK_RECEIVER.test(s.metamask.receiverAddress);
  }
}

/** The billing settings every signed-in user sees. */
export function publicPaymentSettings(
  s: StoredPaymentSettings,
  configured: ConfiguredProviders,
): PaymentSettings {
  const on = (p: PaymentProviderId) => methodAvailable(s, configured, p);
  const methods = {
    stripe: { enabled: on('stripe') },
    paypalBusiness: { enabled: on('paypal_business') },
    paypalStandard: { enabled: on('paypal_standard') },
    metamask: {
      enabled: on('metamask'),
      receiverAddress: on('metamask') ? s.metamask.receiverAddress : null,
      chainId: on('metamask') ? s.metamask.chainId : null,
    },
  };
  const anyEnabled = Object.values(methods).some((m) => m.enabled);
  return {
    currency: s.currency,
    currencySymbol: currencySymbol(s.currency),
    prices: { ...s.prices },
    yearlyDiscounts: { ...YEARLY_DISCOUNT },
    methods,
    emptyMessage: anyEnabled ? null : NO_PAYMENT_METHODS_MESSAGE,
  };
}

/** What one period of a plan (with `addons` additional instances on Starter) costs. */
export function periodAmount(
  s: StoredPaymentSettings,
  purchase: { kind: 'plan' | 'addon_instance'; plan: PaidPlan; cycle: 'monthly' | 'yearly'; addons: number },
): number {
  const monthly =
    purchase.kind === 'addon_instance'
      ? s.prices.addonInstance
      : s.prices[purchase.plan] +
        (purchase.plan === 'starter' ? purchase.addons * s.prices.addonInstance : 0);
  if (purchase.cycle === 'monthly') return Math.round(monthly * 100) / 100;
  // The add-on follows its plan's yearly discount (Starter).
  return yearlyPrice(
    monthly,
    YEARLY_DISCOUNT[purchase.kind === 'addon_instance' ? 'starter' : purchase.plan],
  );
}
