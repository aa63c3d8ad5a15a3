import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';

// int8 (count(*), bigint) as number: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

/** A pg pool that logs (never crashes on) dropped backends, idle or checked out. */
export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', (err) => console.warn(`[db] idle client error: ${err.message}`));
  // A checked-out client's query fails on its own; without a listener its 'error' event would crash us.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * A Kysely instance over a pg pool: a new one for `connectionString`, or the given pool (main.ts shares
 * one pool between Kysely and the job runner).
 */
export function createDb(source: string | pg.Pool, max = 10): Kysely<Database> {
  const pool = typeof source === 'string' ? createPool(source, max) : source;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/** The pool behind each Kysely instance made by createDb. */
const pools = new WeakMap<Kysely<Database>, pg.Pool>();

/**
 * The pool behind `db` (made by createDb), for queries compiled in advance (db/prepared-query.ts) to
 * skip Kysely's executor; undefined for a transaction (its queries must stay on its connection) or a
 * Kysely instance made elsewhere.
 */
export function poolOf(db: Kysely<Database>): pg.Pool | undefined {
  return db.isTransaction ? undefined : pools.get(db);
}
