import type { Db } from '../../db/database.ts';
import type { NotificationInput, NotificationsService } from '../notifications/notifications.service.ts';
import { TRIAL_WARNING_MINUTES } from './plan-rules.ts';
import { claimLapsedPeriods, claimTrialEnds, claimTrialWarnings } from './subscriptions.repository.ts';
import type { SubscriptionsService } from './subscriptions.service.ts';

export interface TrialNoticesDeps {
  db: Db;
  now: () => Date;
  notifications: Pick<NotificationsService, 'notify'>;
  subscriptions: Pick<SubscriptionsService, 'suspendInstancesOf'>;
}

export type TrialNoticesService = ReturnType<typeof createTrialNoticesService>;

const TRIAL_ENDING: NotificationInput = {
  type: 'trial',
  title: `Your trial ends in ${TRIAL_WARNING_MINUTES} minutes`,
  message: 'Choose Starter or Pro on the Billing page to keep your instances running after the free trial.',
};

const TRIAL_ENDED: NotificationInput = {
  type: 'trial',
  title: 'Your free trial has ended',
  message:
    'Your instances are suspended. Subscribe to Starter or Pro on the Billing page to reactivate them.',
};

const SUBSCRIPTION_ENDED: NotificationInput = {
  type: 'billing',
  title: 'Your subscription has ended',
  message: 'Your instances are suspended. Renew your plan on the Billing page to reactivate them.',
};

/** How often the server (background.ts) looks for trials crossing a mark (and once at start). */
export const TRIAL_NOTICES_INTERVAL_MS = 30_000;

/**
 * The "trial ends in 5 minutes" and "trial ended" notifications. `sendDue` finds the trials that crossed
 * a mark since the last run and notifies each user exactly once; safe to run from several processes. A
 * trial that ended also suspends the user's instances (their suspend jobs are added in the same
 * transaction as the notice), and so does a paid period that ended without renewal.
 */
export function createTrialNoticesService({ db, now, notifications, subscriptions }: TrialNoticesDeps) {
  return {
    async sendDue(): Promise<{ warned: number; ended: number; lapsed: number }> {
      const at = now();
      // One transaction: a notice is marked sent only together with its notification.
      return db.transaction().execute(async (trx) => {
        const warned = await claimTrialWarnings(trx, at, TRIAL_WARNING_MINUTES);
        for (const userId of warned) await notifications.notify(userId, TRIAL_ENDING, trx);
        const ended = await claimTrialEnds(trx, at);
        for (const userId of ended) {
          await notifications.notify(userId, TRIAL_ENDED, trx);
          await subscriptions.suspendInstancesOf(userId, trx);
        }
        // A paid period that ran out without renewal suspends the same way, once per lapse.
        const lapsed = await claimLapsedPeriods(trx, at);
        for (const userId of lapsed) {
          await notifications.notify(userId, SUBSCRIPTION_ENDED, trx);
          await subscriptions.suspendInstancesOf(userId, trx);
        }
        return { warned: warned.length, ended: ended.length, lapsed: lapsed.length };
      });
    },
  };
}
