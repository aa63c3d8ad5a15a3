import type { NotificationInput } from '../notifications/notifications.service.ts';

/** The in-app notifications payments send (type 'billing'). */
export const paymentReceived = (what: string): NotificationInput => ({
  type: 'billing',
  title: 'Payment received',
  message: `Thank you: ${what} is active. Your instances are running.`,
});

export const PAYMENT_FAILED: NotificationInput = {
  type: 'billing',
  title: 'Payment failed',
  message:
    'We could not take your last payment. Update your payment method on the Billing page to keep your plan.',
};

export const SUBSCRIPTION_CANCELED: NotificationInput = {
  type: 'billing',
  title: 'Subscription canceled',
  message:
    'Your subscription was canceled and your instances are suspended. Choose a plan on the Billing page to reactivate them.',
};

/** 'Pro (yearly)', 'Starter (monthly)', 'Additional instance (monthly)'. */
export function purchaseDescription(
  kind: 'plan' | 'addon_instance',
  plan: 'starter' | 'pro',
  cycle: 'monthly' | 'yearly',
): string {
  const name = kind === 'addon_instance' ? 'Additional instance' : plan === 'pro' ? 'Pro' : 'Starter';
  return `${name} (${cycle})`;
}
