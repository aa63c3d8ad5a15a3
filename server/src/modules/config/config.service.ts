import {
  ADDON_INSTANCE_MONTHLY_PRICE,
  CURRENCY,
  CURRENCY_SYMBOL,
  PLANS,
  YEARLY_DISCOUNT,
  yearlyPrice,
} from '../subscriptions/plan-rules.ts';
import type { PublicConfig } from './config.schemas.ts';

/** Build flag: OAuth sign-in is switched off (spec customer-area §1). */
export const OAUTH_ENABLED = false;

export interface ConfigDeps {
  /** Site key of the bot-check widget; null when the check is off. */
  turnstileSiteKey: string | null;
}

export type ConfigService = ReturnType<typeof createConfigService>;

const planPrice = (plan: 'starter' | 'pro') => ({
  monthly: PLANS[plan].monthlyPrice,
  yearlyDiscount: YEARLY_DISCOUNT[plan],
  yearly: yearlyPrice(PLANS[plan].monthlyPrice, YEARLY_DISCOUNT[plan]),
});

export function createConfigService({ turnstileSiteKey }: ConfigDeps) {
  return {
    /** What the public pages need before anyone signs in: bot check, sign-in options, prices. */
    get(): PublicConfig {
      return {
        turnstileSiteKey,
        oauthEnabled: OAUTH_ENABLED,
        plans: {
          currency: CURRENCY,
          currencySymbol: CURRENCY_SYMBOL,
          starter: planPrice('starter'),
          pro: planPrice('pro'),
          addonInstance: ADDON_INSTANCE_MONTHLY_PRICE,
        },
      };
    },
  };
}
