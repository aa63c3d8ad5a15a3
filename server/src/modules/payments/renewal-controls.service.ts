import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import { ConflictError, NotFoundError, PaymentProviderError } from '../../lib/errors.ts';
import { DOWNGRADE_BLOCKED_MESSAGE } from '../subscriptions/billing-rules.ts';
import { factsOf, PLANS, standingOf } from '../subscriptions/plan-rules.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { RenewingProvider } from './provider-contract.ts';

const NO_ADDON_TO_REMOVE = 'There is no additional instance to remove.';
const ADDON_REMOVAL_BY_SUPPORT =
  'Your additional instance is billed through PayPal. Contact support to remove it.';
const CHANGE_REFUSED = 'The payment provider did not accept the change. Please try again.';

interface RenewalControlsDeps {
  now: () => Date;
  subscriptions: Pick<
    SubscriptionsService,
    'row' | 'countInstances' | 'setCancelAtPeriodEnd' | 'setAddonInstances'
  >;
  renewing: Partial<Record<'stripe' | 'paypal_business', RenewingProvider>>;
}

/**
 * What changes a renewing plan: cancelling (or keeping) renewal at the period's end, dropping the
 * additional instances, and stopping renewal before an admin's revocation. The provider whose
 * subscription renews the plan (Stripe, PayPal Business) is told first; a refusal of its own (409) is
 * passed on, any other failure answers 502 and nothing changes here.
 */
export function createRenewalControls({ now, subscriptions, renewing }: RenewalControlsDeps) {
  /** The provider that renews the row's plan by itself, if any. */
  const renewingOf = (row: SubscriptionRow) =>
    row.provider === 'stripe' || row.provider === 'paypal_business' ? renewing[row.provider] : undefined;

  /** A change told to the provider: its ConflictError as it is, anything else a 502 with `message`. */
  async function tellProvider(message: string, change: () => Promise<void>) {
    try {
      await change();
    } catch (err) {
      if (err instanceof ConflictError) throw err;
      throw new PaymentProviderError(message, { cause: err });
    }
  }

  return {
    /**
     * Cancels (or keeps) renewal at the end of the paid period. Stripe and PayPal subscriptions are told
     * first; the flag is kept here for every provider.
     */
    async setCancelAtPeriodEnd(userId: string, cancel: boolean): Promise<void> {
      const row = await subscriptions.row(userId);
      if (!row) throw new NotFoundError('Subscription not found');
      if (standingOf(factsOf(row), now()) !== 'active')
        throw new ConflictError('There is no active subscription to cancel.');
      const provider = renewingOf(row);
      if (provider && row.provider_subscription_id)
        await tellProvider(CHANGE_REFUSED, () => provider.setCancelAtPeriodEnd(row, cancel));
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
      const provider = renewingOf(row);
      if (provider && row.provider_subscription_id) {
        if (!provider.removeAddons) throw new ConflictError(ADDON_REMOVAL_BY_SUPPORT);
        await tellProvider(CHANGE_REFUSED, async () => {
          await provider.removeAddons?.(row);
        });
      }
      await subscriptions.setAddonInstances(userId, 0);
    },

    /** Before an admin's revocation: the provider stops charging (502 when it cannot be told). */
    async stopRenewalNow(userId: string): Promise<void> {
      const row = await subscriptions.row(userId);
      if (!row?.provider_subscription_id) return;
      const provider = renewingOf(row);
      if (!provider) return;
      try {
        await provider.stopRenewal(row);
      } catch (err) {
        throw new PaymentProviderError(
          'The payment provider could not cancel the subscription. Please try again.',
          { cause: err },
        );
      }
    },
  };
}
