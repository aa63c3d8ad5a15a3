import type { Schemas, Subscription } from '@berth/openapi';
import type { Instance } from '../../api/instances.queries.ts';
import type { RedirectProvider } from '../../api/payments.queries.ts';
import type { Standing } from '../subscription/standing.ts';

type PaymentMethods = Schemas['PaymentSettings']['methods'];

/** Billing texts. */
export const NO_PAYMENT_METHODS_TEXT =
  'No payment methods are currently available. Please contact support or enable a method in Admin settings.';
export const NO_BILLING_HISTORY_TEXT = 'No billing history available';
export const DOWNGRADE_BLOCKED_TEXT =
  'Please delete your extra instances before downgrading. The basic Starter plan is limited to 1 instance.';
export const INACTIVE_PLAN_TEXT = 'Your subscription is inactive. Complete payment to reactivate.';
export const STATUS_ERROR_TEXT = 'Failed to load subscription status';
export const CREATE_PAYMENT_FAILED_TEXT = 'Failed to create payment URL';

export type PaymentMethodKey = keyof PaymentMethods;

export interface PaymentMethodInfo {
  key: PaymentMethodKey;
  name: string;
  description: string;
  /** The redirect provider of create-paypal-payment; null for MetaMask (paid in the browser wallet). */
  provider: RedirectProvider | null;
}

/** The payment methods in the order the modal lists them. */
const PAYMENT_METHODS: readonly PaymentMethodInfo[] = [
  {
    key: 'stripe',
    name: 'Card (Stripe)',
    description: 'Pay by credit or debit card on Stripe’s secure checkout page.',
    provider: 'stripe',
  },
  {
    key: 'paypalBusiness',
    name: 'PayPal Business',
    description: 'A recurring PayPal subscription, renewed automatically.',
    provider: 'paypal_business',
  },
  {
    key: 'paypalStandard',
    name: 'PayPal',
    description: 'Pay once for the period with your PayPal account or card.',
    provider: 'paypal_standard',
  },
  {
    key: 'metamask',
    name: 'MetaMask',
    description: 'Confirm a zero-value transaction in your wallet; support validates the payment.',
    provider: null,
  },
];

/** The enabled payment methods, in a fixed order. */
export function enabledMethods(methods: PaymentMethods): PaymentMethodInfo[] {
  return PAYMENT_METHODS.filter((method) => methods[method.key].enabled);
}

/**
 * The in-app path of a payment answer that points at our own result page (a Stripe plan changed in
 * place answers /payment-success directly), else null. `origins` are the origins the app is served
 * from: the page's and, on desktop, the server's.
 */
export function inAppResultPath(redirectUrl: string, origins: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(redirectUrl, origins[0]);
  } catch {
    return null;
  }
  if (!origins.includes(url.origin) || !url.pathname.startsWith('/payment-success')) return null;
  return `${url.pathname}${url.search}`;
}

/** The add-on removal warning. */
export const removeAddonText = (starterPrice: string) =>
  `Your plan goes back to plain Starter: the cost returns to ${starterPrice}/month and only 1 instance is allowed. Delete your extra instances first if you use more than one.`;

/** Cancelling at period end keeps access until the end of the paid period. */
export const cancelSubscriptionText = (periodEnd: string | null) =>
  periodEnd
    ? `Your subscription will not renew. You keep access to your plan and instances until ${periodEnd}.`
    : 'Your subscription will not renew. You keep access to your plan and instances until the end of the current billing period.';

/** Instances used, as the subscription counts them. */
export const usedInstances = (sub: Pick<Subscription, 'usedInstances' | 'instancesUsed'>) =>
  Math.max(sub.usedInstances, sub.instancesUsed);

/** Domains used: the instances that have a custom domain. */
export const domainsUsed = (instances: readonly Pick<Instance, 'customDomain'>[]) =>
  instances.filter((instance) => Boolean(instance.customDomain?.domain)).length;

/** Pro → Starter is blocked while more than 1 instance is used. */
export const downgradeBlocked = (used: number) => used > 1;

/** An additional instance is offered only on an active Starter plan. */
export const offersAddonInstance = (sub: Pick<Subscription, 'plan'>, standing: Standing) =>
  standing === 'active' && sub.plan === 'starter';

/** 'Save 10% on Starter and 30% on Pro with yearly billing', from the server's discounts. */
export function savingsText(discounts: { starter: number; pro: number }): string {
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  return `Save ${percent(discounts.starter)} on Starter and ${percent(discounts.pro)} on Pro with yearly billing`;
}
