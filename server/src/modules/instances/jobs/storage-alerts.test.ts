import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestServices, register } from '../../../../test/create-test-app.ts';
import { startTestRunner, waitFor, waitForStatus } from '../../../../test/instances-harness.ts';
import { createMemoryDriver, type MemoryDriver } from '../../../../test/provisioning/memory-driver.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import type { JobRunner } from '../../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../../lib/crypto.ts';

/**
 * The customer hears of a full database: a MySQL instance deployed through the API gets a notification
 * when the driver reports its writes refused at its size, and another when they are given back. The
 * driver keeps its instances in memory and reports as the local driver's watch does; that a real tenant
 * is stopped at its size and reported is proven in provisioning/local/databases/database-limits.test.ts.
 */

const MIB = 1024 ** 2;
let driver: MemoryDriver;
let runner: JobRunner;
let services: ReturnType<typeof createTestServices>;
let app: ReturnType<typeof createApp>;
const log: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  driver = createMemoryDriver();
  const cipher = createEphemeralCipher();
  services = createTestServices(database.db, { provisioner: driver, cipher });
  app = createApp(services);
  services.storageAlerts.start((line) => log.push(line));
  runner = await startTestRunner({ ...database, driver, cipher });
}, 60_000);

afterAll(async () => {
  await services?.storageAlerts.stop();
  await runner?.stop();
});

describe('database size notifications', { timeout: 30_000 }, () => {
  it('tells the owner when the database is full, when it takes writes again, and when the server holds it short of its size', async () => {
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

    const notification = (title: string) =>
      waitFor(
        async () => {
          const list = await call(app, 'GET', '/api/notifications', { token });
          return list.json.items.find((n: { title: string }) => n.title === title);
        },
        { what: `a "${title}" notification`, timeoutMs: 20_000 },
      );

    driver.storageLimit({ instanceId: instance.id, full: true, usedBytes: 64 * MIB, limitBytes: 64 * MIB });
    expect(await notification('Database full')).toMatchObject({
      type: 'instance',
      message:
        'Your MySQL instance "Shop" has filled its database (64 MiB): new data is refused until you free space. Deleted rows leave their room inside the tables; empty (TRUNCATE) or drop tables to get below the size.',
    });

    driver.storageLimit({ instanceId: instance.id, full: false, usedBytes: 3 * MIB, limitBytes: 64 * MIB });
    expect(await notification('Database writable again')).toMatchObject({
      message:
        'Your MySQL instance "Shop" is below the size of its database (64 MiB) again: it accepts new data.',
    });
    expect(log).toEqual([]);

    // Stopped short of its size by the server's disk (the hold): the customer reads that, not "full".
    driver.storageLimit({
      instanceId: instance.id,
      full: true,
      usedBytes: 40 * MIB,
      limitBytes: 64 * MIB,
      heldBytes: 41 * MIB,
    });
    expect(await notification('Database paused for lack of space')).toMatchObject({
      message:
        'Your MySQL instance "Shop" takes no new data for now: it uses 40 MiB of its 64 MiB database, but this server\'s disk is fuller than planned and holds it at 41 MiB. Our team has been told; it takes new data again on its own once there is room, and nothing stored is lost.',
    });
  });
});
