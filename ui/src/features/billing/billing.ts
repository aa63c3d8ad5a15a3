import type { Schemas, Subscription } from '@berth/openapi';
import type { Instance } from '../../api/instances.queries.ts';
import type { Standing } from '../subscription/standing.ts';

type PaymentMethods = Schemas['PaymentSettings']['methods'];

/** Spec customer-area §8 billing texts. */
export const NO_PAYMENT_METHODS_TEXT =
  'No payment methods are currently available. Please contact support or enable a method in Admin settings.';
export const NO_BILLING_HISTORY_TEXT = 'No billing history available';
export const DOWNGRADE_BLOCKED_TEXT =
  'Please delete your extra instances before downgrading. The basic Starter plan is limited to 1 instance.';
export const INACTIVE_PLAN_TEXT = 'Your subscription is inactive. Complete payment to reactivate.';
export const STATUS_ERROR_TEXT = 'Failed to load subscription status';

const METHOD_NAMES: Record<keyof PaymentMethods, string> = {
  stripe: 'Card (Stripe)',
  paypalBusiness: 'PayPal Business',
  paypalStandard: 'PayPal',
  metamask: 'MetaMask',
};

/** The names of the enabled payment methods, in a fixed order. */
export function enabledMethods(methods: PaymentMethods): string[] {
  return (Object.keys(METHOD_NAMES) as (keyof PaymentMethods)[])
    .filter((key) => methods[key].enabled)
    .map((key) => METHOD_NAMES[key]);
}

/** Instances used, as the subscription counts them. */
export const usedInstances = (sub: Pick<Subscription, 'usedInstances' | 'instancesUsed'>) =>
  Math.max(sub.usedInstances, sub.instancesUsed);

/** Domains used: the instances that have a custom domain (spec customer-area §2.13). */
export const domainsUsed = (instances: readonly Pick<Instance, 'customDomain'>[]) =>
  instances.filter((instance) => Boolean(instance.customDomain?.domain)).length;

/** Pro → Starter is blocked while more than 1 instance is used (spec customer-area §4). */
export const downgradeBlocked = (used: number) => used > 1;

/** An additional instance is offered only on an active Starter plan (spec customer-area §4). */
export const offersAddonInstance = (sub: Pick<Subscription, 'plan'>, standing: Standing) =>
  standing === 'active' && sub.plan === 'starter';

/** 'Save 10% on Starter and 30% on Pro with yearly billing', from the server's discounts. */
export function savingsText(discounts: { starter: number; pro: number }): string {
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  return `Save ${percent(discounts.starter)} on Starter and ${percent(discounts.pro)} on Pro with yearly billing`;
}
