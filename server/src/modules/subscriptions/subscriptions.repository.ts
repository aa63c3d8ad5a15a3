import { sql, type Transaction } from 'kysely';
import type { Database, DbOrTx } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared-query.ts';
import type { SubscriptionRow, SubscriptionRowUpdate } from '../../db/tables/subscriptions.ts';

export async function insertTrialSubscription(db: DbOrTx, userId: string, trialEndsAt: Date): Promise<void> {
  await db
    .insertInto('subscriptions')
    .values({ user_id: userId, plan: 'free', status: 'trialing', trial_ends_at: trialEndsAt })
    .execute();
}

// Read on every /api/v1 request (the Pro check) and deploy decision: built and compiled once.
const subscriptionOf = preparedQuery((db, userId: string) =>
  db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId),
);

export async function findSubscription(db: DbOrTx, userId: string): Promise<SubscriptionRow | undefined> {
  return (await subscriptionOf(db, userId))[0];
}

/**
 * The user's subscription with how many instances count against it, in one query (it is read on every
 * profile and status answer). The rule is instances.repository's countActiveInstances: all but those
 * being deleted; subscriptions.test.ts checks both agree.
 */
// Built and compiled once (db/prepared-query.ts): it is read on every profile and status answer.
const subscriptionWithUsage = preparedQuery((db, userId: string) =>
  db
    .selectFrom('subscriptions')
    .selectAll('subscriptions')
    .select((eb) =>
      eb
        .selectFrom('instances')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('instances.user_id', '=', 'subscriptions.user_id')
        .where('instances.status', '<>', 'deleting')
        .as('used'),
    )
    .where('subscriptions.user_id', '=', userId),
);

export async function findSubscriptionWithUsage(
  db: DbOrTx,
  userId: string,
): Promise<(SubscriptionRow & { used: number }) | undefined> {
  const row = (await subscriptionWithUsage(db, userId))[0];
  return row && { ...row, used: Number(row.used ?? 0) };
}

/** The user's subscription, locked until the transaction ends (deploys of one user go one at a time). */
export async function lockSubscriptionForUpdate(
  trx: Transaction<Database>,
  userId: string,
): Promise<SubscriptionRow | undefined> {
  return trx
    .selectFrom('subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Marks the running trials that end within `minutes` of `now` as warned and answers their users. The
 * guard `trial_warning_sent_at is null` under the UPDATE's row locks makes each warning go out once,
 * however many server processes run this at the same moment.
 */
export async function claimTrialWarnings(db: DbOrTx, now: Date, minutes: number): Promise<string[]> {
  const rows = await db
    .updateTable('subscriptions')
    .set({ trial_warning_sent_at: now })
    .where('status', '=', 'trialing')
    .where('trial_warning_sent_at', 'is', null)
    .where('trial_ends_at', '>', now)
    .where('trial_ends_at', '<=', new Date(now.getTime() + minutes * 60_000))
    .returning('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

/** Marks the trials that have ended by `now` as told, once each (same guard as above). */
export async function claimTrialEnds(db: DbOrTx, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('subscriptions')
    .set({ trial_ended_sent_at: now })
    .where('status', '=', 'trialing')
    .where('trial_ended_sent_at', 'is', null)
    .where('trial_ends_at', '<=', now)
    .returning('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

export async function updateSubscription(
  db: DbOrTx,
  userId: string,
  patch: SubscriptionRowUpdate,
): Promise<void> {
  await db.updateTable('subscriptions').set(patch).where('user_id', '=', userId).execute();
}

/** One add-on instance fewer (never below none). */
export async function decrementAddonInstances(db: DbOrTx, userId: string, at: Date): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set({ addon_instances: sql<number>`greatest(addon_instances - 1, 0)`, updated_at: at })
    .where('user_id', '=', userId)
    .execute();
}

export async function findUserIdByStripeCustomer(
  db: DbOrTx,
  customerId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .select('user_id')
    .where('stripe_customer_id', '=', customerId)
    .executeTakeFirst();
  return row?.user_id;
}

/**
 * Marks the paid periods that ended by `now` (and were not renewed) as told, once each: the guard
 * `period_ended_sent_at is null` works like the trial notices'. A grant or payment clears it.
 */
export async function claimLapsedPeriods(db: DbOrTx, now: Date): Promise<string[]> {
  const rows = await db
    .updateTable('subscriptions')
    .set({ period_ended_sent_at: now })
    .where('status', '=', 'active')
    .where('period_ended_sent_at', 'is', null)
    .where('current_period_end', '<=', now)
    .returning('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}
