import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/instances-harness.ts';
import { createTestDatabase } from '../../test/test-db.ts';
import type { Db } from '../db/database.ts';
import { startPgListener } from './pg-listener.ts';

let db: Db;
let url: string;
beforeAll(async () => {
  ({ db, url } = await createTestDatabase());
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const listeners = async () =>
  (
    await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and query ilike 'listen%'`.execute(db)
  ).rows[0]?.n;

describe('startPgListener', () => {
  it('hands over payloads of its channel only, survives a killed connection, and closes on stop', async () => {
    const payloads: string[] = [];
    const lines: string[] = [];
    let reconnects = 0;
    const listener = await startPgListener({
      connectionString: url,
      channel: 'test_channel',
      onMessage: (p) => payloads.push(p),
      onReconnect: () => reconnects++,
      log: (line) => lines.push(line),
      retryMs: 20,
    });
    await sql`select pg_notify('other_channel', 'nope'), pg_notify('test_channel', 'one')`.execute(db);
    // Delivered in order: once 'one' is here, 'nope' would have been too.
    await waitFor(() => (payloads.length > 0 ? true : undefined), { what: 'the first payload' });
    expect(payloads).toEqual(['one']);

    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where datname = current_database() and query ilike 'listen%'`.execute(db);
    await waitFor(() => (reconnects > 0 ? true : undefined), { what: 'the reconnect' });
    expect(reconnects).toBe(1);
    expect(lines.some((l) => l.includes('connection lost'))).toBe(true);
    await sql`select pg_notify('test_channel', 'two')`.execute(db);
    await waitFor(() => (payloads.length > 1 ? true : undefined), {
      what: 'the payload after the reconnect',
    });
    expect(payloads).toEqual(['one', 'two']);

    await listener.stop();
    await waitFor(async () => ((await listeners()) === 0 ? true : undefined), { what: 'no listener left' });
  });

  it('rejects when the database cannot be reached at start, and does not retry', async () => {
    const lines: string[] = [];
    await expect(
      startPgListener({
        connectionString: 'postgres://nobody@127.0.0.1:1/none',
        channel: 'test_channel',
        onMessage: () => {},
        log: (line) => lines.push(line),
        retryMs: 10,
      }),
    ).rejects.toThrow();
    // Nothing retries behind the rejection: ten retry periods later, nothing was tried or logged.
    await sleep(100);
    expect(lines).toEqual([]);
  });
});
