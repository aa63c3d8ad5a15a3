import type { Schemas } from '@berth/openapi';
import { monthlyEquivalent, SUPPORT_RESPONSE_HOURS, yearlyPrice } from '@berth/openapi/rules';

export type BillingCycle = 'monthly' | 'yearly';
export type PlanId = 'starter' | 'pro';
type PlanPrice = Schemas['PlanPrice'];

export interface PlanOffer {
  id: PlanId;
  name: string;
  tagline: string;
  /**
   * What the card lists; `addonPrice` is the formatted price of one additional instance, `apiAccess`
   * whether this server offers the public API (GET /api/config `offer.publicApi`).
   */
  features(addonPrice: string, apiAccess: boolean): string[];
}

/** The two plans and what they include. */
export const PLAN_OFFERS: readonly PlanOffer[] = [
  {
    id: 'starter',
    name: 'Starter',
    tagline: 'One instance for a site, a workflow or a database.',
    features: (addonPrice) => [
      '1 instance',
      'Custom domain',
      'Free SSL certificate',
      'Email support',
      `Support response within ${SUPPORT_RESPONSE_HOURS.starter} hours`,
      `Additional instances at ${addonPrice}/month each`,
    ],
  },
  {
    id: 'pro',
    name: 'Pro',
    tagline: 'Unlimited instances for teams and agencies.',
    features: (_addonPrice, apiAccess) => [
      'Unlimited instances',
      'Unlimited custom domains',
      'Free SSL certificates',
      'Priority support',
      `Support response within ${SUPPORT_RESPONSE_HOURS.pro} hours`,
      apiAccess ? 'API access: 150 requests per minute' : 'API access: Coming soon',
    ],
  },
];

export const formatMoney = (amount: number, symbol: string) => `${symbol}${amount.toFixed(2)}`;

export interface ShownPrice {
  /** The price per month: the monthly price, or the yearly price divided by 12. */
  perMonth: number;
  /** The yearly amount billed at once (yearly only). */
  billedYearly: number | null;
  /** Whole-percent discount of the yearly price (yearly only). */
  discountPercent: number | null;
}

/**
 * What a card shows for a cycle: yearly prices (monthly × 12 × (1 − discount), from the server) are
 * shown as their monthly equivalent, rounded to the cent.
 */
export function shownPrice(price: PlanPrice, cycle: BillingCycle): ShownPrice {
  if (cycle === 'monthly') return { perMonth: price.monthly, billedYearly: null, discountPercent: null };
  return {
    perMonth: monthlyEquivalent(price.yearly),
    billedYearly: price.yearly,
    discountPercent: Math.round(price.yearlyDiscount * 100),
  };
}

/** The best yearly discount among the plans, in whole percent. */
export const bestYearlyDiscount = (prices: readonly PlanPrice[]) =>
  Math.round(Math.max(0, ...prices.map((price) => price.yearlyDiscount)) * 100);

type Plans = Schemas['PublicConfig']['plans'];
type PaymentSettings = Schemas['PaymentSettings'];

/** A plan's price in the pricing page's shape, its yearly price by the server's rule. */
const planPrice = (monthly: number, discount: number): PlanPrice => ({
  monthly,
  yearlyDiscount: discount,
  yearly: yearlyPrice(monthly, discount),
});

/** The plan prices of the billing settings (monthly prices and yearly discounts) in the pricing page's shape. */
export function plansFromSettings(settings: PaymentSettings): Plans {
  return {
    currency: settings.currency,
    currencySymbol: settings.currencySymbol,
    starter: planPrice(settings.prices.starter, settings.yearlyDiscounts.starter),
    pro: planPrice(settings.prices.pro, settings.yearlyDiscounts.pro),
    addonInstance: settings.prices.addonInstance,
  };
}
