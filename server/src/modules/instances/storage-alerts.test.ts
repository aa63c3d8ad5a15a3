import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessDatabase, call, createTestServices, register } from '../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitFor,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';

/**
 * The customer hears of a full database: a MySQL instance deployed through the API on the real local
 * driver (a 64 MiB database), filled by its owner with the real client, gets a notification when its
 * writes are refused and another when emptying a table gives them back.
 */

let prov: TestProvisioning;
let runner: JobRunner;
let services: ReturnType<typeof createTestServices>;
let app: ReturnType<typeof createApp>;
const log: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  prov = await startTestProvisioning({ mysqlDiskMb: 64 });
  const cipher = createEphemeralCipher();
  services = createTestServices(database.db, { provisioner: prov.driver, cipher });
  app = createApp(services);
  services.storageAlerts.start((line) => log.push(line));
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher });
}, 300_000);

afterAll(async () => {
  await services?.storageAlerts.stop();
  await runner?.stop();
  await prov?.stop();
}, 60_000);

describe('database size notifications', { timeout: 60_000 }, () => {
  it('tells the owner when the database is full and when it takes writes again', async () => {
    const { token, user } = await register(app);
    await services.db
      .updateTable('subscriptions')
      .set({ plan: 'pro', status: 'active' })
      .where('user_id', '=', String(user.id))
      .execute();
    const res = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'Shop', type: 'MySQL' },
    });
    expect(res.status).toBe(202);
    const instance = await waitForStatus(app, token, res.json.instance.id, 'running');
    const access = await call(app, 'GET', `/api/instances/${instance.id}/access`, { token });
    const { host, port, name: database, user: login, password } = accessDatabase(access.json);
    const connect = () => mysql.createConnection({ host, port, database, user: login, password });

    const notification = (title: string) =>
      waitFor(
        async () => {
          const list = await call(app, 'GET', '/api/notifications', { token });
          return list.json.items.find((n: { title: string }) => n.title === title);
        },
        { what: `a "${title}" notification`, timeoutMs: 20_000 },
      );

    const writer = await connect();
    writer.on('error', () => {});
    await writer.query('CREATE TABLE big (pad LONGBLOB)');
    await expect(
      writer.query("INSERT INTO big SELECT REPEAT('x', 1048576) FROM seq_1_to_100"),
    ).rejects.toThrow();
    await writer.end().catch(() => {});
    expect(await notification('Database full')).toMatchObject({
      type: 'instance',
      message:
        'Your MySQL instance "Shop" has filled its database (64 MiB): new data is refused until you free space. Deleted rows leave their room inside the tables; empty (TRUNCATE) or drop tables to get below the size.',
    });

    const cleaner = await connect();
    cleaner.on('error', () => {});
    await cleaner.query('TRUNCATE TABLE big');
    await cleaner.end().catch(() => {});
    expect(await notification('Database writable again')).toMatchObject({
      message:
        'Your MySQL instance "Shop" is below the size of its database (64 MiB) again: it accepts new data.',
    });
    expect(log).toEqual([]);
  });
});
