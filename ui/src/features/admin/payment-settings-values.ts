import type { AdminPaymentSettings, AdminPaymentSettingsUpdate } from '../../api/admin.queries.ts';
import type { BackupDaysKey, ChainId, Currency, MethodKey, PriceKey } from './admin.ts';

// The payment settings form's values (strings while typed) and their conversion from and to the API.

/** What the form edits: the numbers as typed, the switches, the MetaMask receiver. */
export interface PaymentFormValues {
  currency: Currency;
  prices: Record<PriceKey, string>;
  backupDays: Record<BackupDaysKey, string>;
  enabled: Record<MethodKey, boolean>;
  receiverAddress: string;
  chainId: ChainId;
}

export const valuesOf = (settings: AdminPaymentSettings): PaymentFormValues => ({
  currency: settings.currency,
  prices: {
    starter: String(settings.prices.starter),
    pro: String(settings.prices.pro),
    addonInstance: String(settings.prices.addonInstance),
  },
  backupDays: {
    starter: String(settings.backupDays.starter),
    pro: String(settings.backupDays.pro),
  },
  enabled: {
    stripe: settings.methods.stripe.enabled,
    paypalBusiness: settings.methods.paypalBusiness.enabled,
    paypalStandard: settings.methods.paypalStandard.enabled,
    metamask: settings.methods.metamask.enabled,
  },
  receiverAddress: settings.methods.metamask.receiverAddress ?? '',
  chainId: settings.methods.metamask.chainId ?? '0xaa36a7',
});

export const updateOf = (values: PaymentFormValues): AdminPaymentSettingsUpdate => ({
  currency: values.currency,
  prices: {
    starter: Number(values.prices.starter),
    pro: Number(values.prices.pro),
    addonInstance: Number(values.prices.addonInstance),
  },
  backupDays: { starter: Number(values.backupDays.starter), pro: Number(values.backupDays.pro) },
  methods: {
    stripe: { enabled: values.enabled.stripe },
    paypalBusiness: { enabled: values.enabled.paypalBusiness },
    paypalStandard: { enabled: values.enabled.paypalStandard },
    metamask: {
      enabled: values.enabled.metamask,
      receiverAddress: values.receiverAddress.trim() || null,
      chainId: values.chainId,
    },
  },
});
