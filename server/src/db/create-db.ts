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
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
