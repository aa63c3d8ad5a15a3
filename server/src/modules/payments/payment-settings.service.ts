import type { Db } from '../../db/database.ts';
import { ValidationError } from '../../lib/errors.ts';
import type { PaymentSettings } from '../subscriptions/subscriptions.schemas.ts';
import {
  type ConfiguredProviders,
  METAMASK_RECEIVER,
  methodAvailable,
  type PaymentSettingsStore,
  publicPaymentSettings,
  readPaymentSettings,
  type StoredPaymentSettings,
} from './payment-settings.ts';
import type { AdminPaymentSettings, AdminPaymentSettingsUpdate } from './payments.schemas.ts';

interface PaymentSettingsDeps {
  db: Db;
  now: () => Date;
  configured: ConfiguredProviders;
  settingsStore: PaymentSettingsStore;
}

/**
 * The billing settings: what users see (prices, currency, the methods they can pay with), and the
 * admin's view and change of them (each method enabled, configured on the server, available).
 */
export function createPaymentSettingsService({ db, now, configured, settingsStore }: PaymentSettingsDeps) {
  function adminView(s: StoredPaymentSettings): AdminPaymentSettings {
    return {
      currency: s.currency,
      prices: s.prices,
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
    async settings(): Promise<PaymentSettings> {
      return publicPaymentSettings(await settingsStore.read(), configured);
    },

    async adminSettings(): Promise<AdminPaymentSettings> {
      return adminView(await settingsStore.read());
    },

    async updateAdminSettings(input: AdminPaymentSettingsUpdate): Promise<AdminPaymentSettings> {
      const current = await readPaymentSettings(db);
      const m = input.methods;
      const next: StoredPaymentSettings = {
        currency: input.currency ?? current.currency,
        prices: { ...current.prices, ...input.prices },
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
      await settingsStore.write(next, now());
      return adminView(next);
    },
  };
}
