import type { DbOrTx } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared-query.ts';
import type { ApiKeyRow } from '../../db/tables/api-keys.ts';

export interface StoredKey {
  hash: string;
  last4: string;
}

/** The user's key, if any (a user has at most one). */
export function findUserKey(db: DbOrTx, userId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Stores a first key; undefined when the user has one already (the unique user_id decides, also in a race). */
export function insertKey(db: DbOrTx, userId: string, key: StoredKey): Promise<ApiKeyRow | undefined> {
  return db
    .insertInto('api_keys')
    .values({ user_id: userId, key_hash: key.hash, last4: key.last4 })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * Replaces the user's key (or stores a first one). The old hash is overwritten in the same statement,
 * so the old key stops working the moment this commits; label and notes stay.
 */
export async function replaceKey(db: DbOrTx, userId: string, key: StoredKey, now: Date): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({ user_id: userId, key_hash: key.hash, last4: key.last4, created_at: now })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        key_hash: key.hash,
        last4: key.last4,
        created_at: now,
        last_used_at: null,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateKeyMeta(
  db: DbOrTx,
  userId: string,
  id: string,
  meta: { label: string; notes: string },
): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set(meta)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteKey(db: DbOrTx, userId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('api_keys')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The key with this hash: its id and owner. */
// The key lookup of every /api/v1 request: built and compiled once (db/prepared-query.ts).
const keyByHash = preparedQuery((db, hash: string) =>
  db.selectFrom('api_keys').select(['id', 'user_id', 'last_used_at']).where('key_hash', '=', hash),
);

export async function findKeyByHash(
  db: DbOrTx,
  hash: string,
): Promise<Pick<ApiKeyRow, 'id' | 'user_id' | 'last_used_at'> | undefined> {
  return (await keyByHash(db, hash))[0];
}

export async function touchKey(db: DbOrTx, id: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
