import type { DbOrTx } from '../../db/database.ts';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';

export async function insertTrialSubscription(db: DbOrTx, userId: string, trialEndsAt: Date): Promise<void> {
  await db
    .insertInto('subscriptions')
    .values({ user_id: userId, plan: 'free', status: 'trialing', trial_ends_at: trialEndsAt })
    .execute();
}

export async function findSubscription(db: DbOrTx, userId: string): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).executeTakeFirst();
}
