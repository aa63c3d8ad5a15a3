import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';

/** How long a first answer is replayed. */
const IDEMPOTENCY_HOURS = 24;
/** A claim whose request never finished (the process died) is given up after this long. */
const ABANDONED_MINUTES = 5;

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'taken'; requestHash: string; status: number | null; body: unknown };

/**
 * Claims `key` for this user's request, or answers what holds it: the first request's hash and, once
 * it finished, its answer. Expired entries (24 h) and abandoned claims are cleared first.
 */
export async function claimIdempotencyKey(
  db: DbOrTx,
  userId: string,
  key: string,
  requestHash: string,
): Promise<IdempotencyClaim> {
  await db
    .deleteFrom('api_idempotency')
    .where((eb) =>
      eb.or([
        eb('created_at', '<', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`),
        eb.and([
          eb('user_id', '=', userId),
          eb('key', '=', key),
          eb('status', 'is', null),
          eb('created_at', '<', sql<Date>`now() - make_interval(mins => ${ABANDONED_MINUTES})`),
        ]),
      ]),
    )
    .execute();
  const inserted = await db
    .insertInto('api_idempotency')
    .values({ user_id: userId, key, request_hash: requestHash, status: null, body: null })
    .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  if (inserted) return { kind: 'claimed' };
  const row = await db
    .selectFrom('api_idempotency')
    .select(['request_hash', 'status', 'body'])
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .executeTakeFirst();
  // Deleted between the insert and this read (expired just now): treat as still running; a retry claims it.
  if (!row) return { kind: 'taken', requestHash, status: null, body: null };
  return { kind: 'taken', requestHash: row.request_hash, status: row.status, body: row.body };
}

export async function storeIdempotentAnswer(
  db: DbOrTx,
  userId: string,
  key: string,
  answer: { status: number; body: unknown },
): Promise<void> {
  await db
    .updateTable('api_idempotency')
    .set({ status: answer.status, body: JSON.stringify(answer.body) })
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .execute();
}

export async function releaseIdempotencyKey(db: DbOrTx, userId: string, key: string): Promise<void> {
  await db.deleteFrom('api_idempotency').where('user_id', '=', userId).where('key', '=', key).execute();
}
