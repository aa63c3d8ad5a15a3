import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestServices, register } from '../../../../test/create-test-app.ts';
import { waitFor } from '../../../../test/instances-harness.ts';
import { createMemoryDriver } from '../../../../test/provisioning/memory-driver.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import type { Db } from '../../../db/database.ts';
import { enqueueInstanceJob } from '../queue/instance-jobs.ts';
import { NODE_DOWN } from '../server-words.ts';

/**
 * A driver's live states (the swarm driver: a node down, a task killed by its memory limit) reach the
 * instance row and the customer's notifications, except while the instance's own job owns it or it is
 * suspended.
 */

let db: Db;
let services: ReturnType<typeof createTestServices>;
let app: ReturnType<typeof createApp>;
const log: string[] = [];
/** A driver with live states, which the test tells (`liveState`) as a swarm's events would. */
const driver = createMemoryDriver({}, { live: true });

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  services = createTestServices(db, { provisioner: driver });
  app = createApp(services);
  services.instanceLiveStates.start((line) => log.push(line));
});

afterAll(() => services.instanceLiveStates.stop());

async function runningInstance(userId: string, suspended = false) {
  return db
    .insertInto('instances')
    .values({
      user_id: userId,
      name: 'Orders',
      type: 'mysql',
      category: 'database',
      region: 'us-east-1',
      memory: '1GB',
      cpu: '1',
      status: suspended ? 'suspended' : 'running',
      suspended,
      deployed_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

const rowOf = (id: string) =>
  db
    .selectFrom('instances')
    .select(['status', 'status_message'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

const tell = driver.liveState;

describe('live instance states from the driver', () => {
  it("shows a node down as 'Waiting for its server to come back', and running again once it is back", async () => {
    const { user, token } = await register(app);
    const row = await runningInstance(user.id);
    tell({ id: row.id, type: 'mysql', state: 'node-down' });
    await waitFor(async () => ((await rowOf(row.id)).status === 'error' ? true : undefined), {
      what: 'the error state',
    });
    expect(await rowOf(row.id)).toEqual({ status: 'error', status_message: NODE_DOWN });
    // The customer's instance page reads it from the API as it is.
    const shown = await call(app, 'GET', `/api/instances/${row.id}`, { token });
    expect(shown.json.instance).toMatchObject({ status: 'error', statusMessage: NODE_DOWN });

    tell({ id: row.id, type: 'mysql', state: 'running' });
    await waitFor(async () => ((await rowOf(row.id)).status === 'running' ? true : undefined), {
      what: 'running again',
    });
    expect(await rowOf(row.id)).toEqual({ status: 'running', status_message: null });
  });

  it('tells the owner of a restart after running out of memory', async () => {
    const { user, token } = await register(app);
    const row = await runningInstance(user.id);
    tell({
      id: row.id,
      type: 'mysql',
      state: 'running',
      message: 'Restarted after running out of memory at 14:02',
    });
    const notification = await waitFor(async () => {
      const { json } = await call(app, 'GET', '/api/notifications', { token });
      return json.items.find((n) => n.title === 'Instance restarted');
    });
    expect(notification.message).toBe(
      'Your MySQL instance "Orders": Restarted after running out of memory at 14:02',
    );
    expect((await rowOf(row.id)).status).toBe('running');
  });

  it('leaves alone an instance whose own job is under way, and a suspended one', async () => {
    const { user } = await register(app);
    const busy = await runningInstance(user.id);
    await enqueueInstanceJob(db, 'suspension', busy.id);
    const suspended = await runningInstance(user.id, true);
    const applied = await services.instanceLiveStates.apply({
      id: busy.id,
      type: 'mysql',
      state: 'node-down',
    });
    expect(applied?.status).toBe('running');
    await services.instanceLiveStates.apply({
      id: suspended.id,
      type: 'mysql',
      state: 'error',
      message: 'x',
    });
    expect(await rowOf(busy.id)).toEqual({ status: 'running', status_message: null });
    expect(await rowOf(suspended.id)).toEqual({ status: 'suspended', status_message: null });
  });
});
