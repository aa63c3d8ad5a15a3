import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  accessDatabase,
  call,
  createTestApp,
  type DeployBody,
  present,
  register,
  type TestApp,
} from '../../../../test/create-test-app.ts';
import { startTestRunner, waitFor, waitForGone, waitForStatus } from '../../../../test/instances-harness.ts';
import { withEngine } from '../../../../test/provisioning/engines.ts';
import { createMemoryDriver, type MemoryDriver } from '../../../../test/provisioning/memory-driver.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/test-db.ts';
import type { Db } from '../../../db/database.ts';
import { type JobRunner, recoverAbandonedJobs } from '../../../jobs/job-runner.ts';
import { type Cipher, createEphemeralCipher } from '../../../lib/crypto.ts';
import { ValidationError } from '../../../lib/errors.ts';
import { type ProvisioningDriver, ProvisioningUnavailableError } from '../../../provisioning/driver.ts';
import type { DatabaseCredentials } from '../../../provisioning/engine.ts';
import { type Capabilities, unavailable } from '../../../provisioning/instance-types.ts';
import { trackDriverStart } from './driver-startup.ts';
import { DEFAULT_BUDGETS, enqueueInstanceJob, reconcileInstances } from './instance-jobs.ts';

/**
 * The job side of instances: deadlines, retries, idempotent re-runs, start-up reconcile and the recovery
 * of jobs whose worker died. The driver keeps its instances in memory, and its hooks make an operation
 * wait, hang or fail; the test reads what its engines hold (an instance, its password). What the real
 * engines do with the same calls (a deploy again keeps the tenant and its data, a new password refuses
 * the old one) is proven on the local driver (provisioning/local/local-driver.test.ts).
 */

let database: TestDatabase;
let db: Db;
let cipher: Cipher;
let driver: MemoryDriver;
let runner: JobRunner | undefined;
let app: TestApp;
/** What the job runner logged (graphile-worker's warnings and errors, the tasks' failures). */
const runnerLog: string[] = [];

const startRunner = async () => {
  runner = await startTestRunner({ ...database, driver, cipher, log: runnerLog });
};
const stopRunner = async () => {
  await runner?.stop();
  runner = undefined;
};

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  cipher = createEphemeralCipher();
  driver = createMemoryDriver();
  app = createTestApp(db, { provisioner: driver, cipher });
  await startRunner();
}, 60_000);

afterAll(async () => {
  await stopRunner();
});

const opened: (() => void)[] = [];
beforeEach(() => {
  driver.hooks = {};
});
afterEach(() => {
  // A test that failed while holding an operation must not leave its job hanging for the next ones.
  for (const open of opened.splice(0)) open();
});

/** A promise with its resolve, to hold an operation until the test lets it go on. */
function gate() {
  let open = () => {};
  const held = new Promise<void>((resolve) => {
    open = resolve;
  });
  opened.push(open);
  return { opened: held, open };
}

async function proUser() {
  const account = await register(app);
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active' })
    .where('user_id', '=', String(account.user.id))
    .execute();
  return account;
}

const deploy = (target: TestApp, token: string, type: DeployBody['type'] = 'MySQL', name = 'Jobs') =>
  call(target, 'POST', '/api/instances/deploy', { token, body: { name, type } });

async function accessOf(token: string, id: string): Promise<DatabaseCredentials> {
  const res = await call(app, 'GET', `/api/instances/${id}/access`, { token });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const { host, port, name, user, password } = accessDatabase(res.json);
  return { host, port, database: name, user, password };
}

const jobsOf = async (instanceId: string) =>
  (
    await sql<{ task_identifier: string; locked_by: string | null; attempts: number }>`
      select task_identifier, locked_by, attempts from graphile_worker.jobs
      where queue_name = ${`instance:${instanceId}`}`.execute(db)
  ).rows;

/** A driver error as the local driver may throw it: a host path, a server's words, installer output. */
const RAW_DRIVER_ERROR =
  "ERROR 1045 (28000): Access denied for user 'root'@'localhost' via " +
  '/var/lib/berth/provisioning/mariadb/run/mysqld.sock\ninstaller output: mariadb-install-db exited 1';

/** The reference in "<Operation> failed. Reference: <ref>" (the message must be exactly that). */
function referenceIn(statusMessage: string): string {
  const match = /^Deployment failed\. Reference: ([0-9a-f]{12})$/.exec(statusMessage);
  expect(match, statusMessage).not.toBeNull();
  return match?.[1] ?? '';
}

/** The runner's log line naming `ref` (exactly one). */
function logLineOf(ref: string): string {
  const lines = runnerLog.filter((line) => line.includes(`[ref ${ref}]`));
  expect(lines, runnerLog.join('\n')).toHaveLength(1);
  return lines[0] ?? '';
}

const titlesOf = async (token: string) =>
  (await call(app, 'GET', '/api/notifications', { token })).json.items.map((n: { title: string }) => n.title);

describe('instance jobs', { timeout: 60_000 }, () => {
  it('answers /access with 202 and the spec text while deploying, then 200 with the credentials', async () => {
    const { token } = await proUser();
    const hold = gate();
    driver.hooks.beforeDeploy = () => hold.opened;
    const res = await deploy(app, token);
    const id = res.json.instance.id;
    await waitFor(async () => ((await jobsOf(id))[0]?.locked_by ? true : undefined), {
      what: 'the job to run',
    });
    const preparing = await call(app, 'GET', `/api/instances/${id}/access`, { token });
    expect(preparing.status).toBe(202);
    expect(preparing.json).toEqual({ message: 'Preparing credentials... This may take a moment.' });
    hold.open();
    await waitForStatus(app, token, id, 'running');
    expect((await accessOf(token, id)).password).toBe(driver.instances.get(id)?.password);
  });

  it('ends a deploy that outlives its deadline in error with a message and an "Instance failed" notification', async () => {
    const { token } = await proUser();
    const hung = gate();
    driver.hooks.beforeDeploy = () => hung.opened; // never opened while the deadline runs
    const quick = createTestApp(db, {
      provisioner: driver,
      cipher,
      jobBudgets: { ...DEFAULT_BUDGETS, deploy: 1500 },
    });
    const started = Date.now();
    const res = await deploy(quick, token, 'PostgreSQL', 'Hangs');
    const failed = await waitForStatus(app, token, res.json.instance.id, 'error', 10_000);
    expect(Date.now() - started).toBeLessThan(6000);
    expect(failed.statusMessage).toBe('Deployment failed: it did not finish in time');
    expect(await titlesOf(token)).toContain('Instance failed');
    const access = await call(app, 'GET', `/api/instances/${failed.id}/access`, { token });
    expect(access.status).toBe(409);
    // The job holds the instance's queue until the abandoned call settles, so a delete cannot race it.
    expect(await jobsOf(failed.id)).toMatchObject([{ task_identifier: 'instance.deploy', attempts: 1 }]);
    expect((await call(app, 'DELETE', `/api/instances/${failed.id}`, { token })).status).toBe(202);
    expect((await waitForStatus(app, token, failed.id, 'deleting')).id).toBe(failed.id);
    hung.open(); // the abandoned create now goes through, then the delete drops it
    await waitForGone(app, token, failed.id);
    expect(driver.instances.has(failed.id)).toBe(false);
  });

  it('retries a deploy that failed for a passing reason, and it runs with the same password', async () => {
    const { token } = await proUser();
    const seen: string[] = [];
    driver.hooks.beforeDeploy = async (spec) => {
      seen.push('password' in spec ? (spec.password ?? '') : '');
      if (seen.length === 1) throw new Error('connect ECONNREFUSED 127.0.0.1:3306 (simulated)');
    };
    const res = await deploy(app, token, 'MySQL', 'Flaky');
    const running = await waitForStatus(app, token, res.json.instance.id, 'running', 15_000);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect((await accessOf(token, running.id)).password).toBe(seen[0]);
    expect(await titlesOf(token)).not.toContain('Instance failed');
  });

  it('gives up at once on an error a retry cannot fix', async () => {
    const { token } = await proUser();
    driver.hooks.beforeDeploy = async () => {
      throw new ValidationError('the server refused this tenant (simulated)');
    };
    const res = await deploy(app, token, 'MySQL', 'Refused');
    const failed = await waitForStatus(app, token, res.json.instance.id, 'error', 5000);
    expect(failed.statusMessage).toBe('Deployment failed: the server refused this tenant (simulated)');
  });

  it('ends in error, not in a retry loop, when the stored secret does not decrypt (another key)', async () => {
    const { token } = await proUser();
    const otherKey = createTestApp(db, { provisioner: driver, cipher: createEphemeralCipher() });
    const res = await deploy(otherKey, token, 'MySQL', 'Wrong key');
    const failed = await waitForStatus(app, token, res.json.instance.id, 'error', 5000);
    // The operator's hint goes to the log; the customer reads a reference to it.
    const ref = referenceIn(present(failed.statusMessage, 'a status message'));
    expect(logLineOf(ref)).toContain('A stored secret could not be decrypted (was ENCRYPTION_KEY changed?)');
    // No retry: the job ends (the queue removes it a moment after its last write to the instance).
    await waitFor(async () => ((await jobsOf(failed.id)).length === 0 ? true : undefined), {
      timeoutMs: 5000,
      what: 'the failed deploy job to end without a retry',
    });
    expect(await jobsOf(failed.id)).toEqual([]);
  });

  it('shows a generic failure with a reference for a raw driver error; the log holds it under that reference', async () => {
    const { token } = await proUser();
    driver.hooks.beforeDeploy = async () => {
      throw new Error(RAW_DRIVER_ERROR);
    };
    // A budget shorter than the first retry's backoff: the first failure is the last.
    const quick = createTestApp(db, {
      provisioner: driver,
      cipher,
      jobBudgets: { ...DEFAULT_BUDGETS, deploy: 2000 },
    });
    const res = await deploy(quick, token, 'MySQL', 'Broken');
    const failed = await waitForStatus(app, token, res.json.instance.id, 'error', 10_000);
    const ref = referenceIn(present(failed.statusMessage, 'a status message'));
    expect(logLineOf(ref)).toContain(RAW_DRIVER_ERROR);
    expect(logLineOf(ref)).toContain(`instance.deploy of ${failed.id}`);

    // Nothing raw in what the customer can read: the instance list, /access, the notification.
    const list = await call(app, 'GET', '/api/instances', { token });
    const listed = list.json.instances.find((i) => i.id === failed.id);
    expect(listed?.statusMessage).toBe(`Deployment failed. Reference: ${ref}`);
    const access = await call(app, 'GET', `/api/instances/${failed.id}/access`, { token });
    expect(access.status).toBe(409);
    expect(access.json.message).toBe(`No credentials: Deployment failed. Reference: ${ref}`);
    const notices = (await call(app, 'GET', '/api/notifications', { token })).json.items;
    expect(notices[0]).toMatchObject({
      title: 'Instance failed',
      message: `Your MySQL instance "Broken": Deployment failed. Reference: ${ref}`,
    });
    const seen = JSON.stringify([failed, list.json, access.json, notices]);
    expect(seen).not.toMatch(/\/var\/lib|mysqld\.sock|ERROR 1045|installer/);
  });

  it('deploys again idempotently: a second deploy job keeps the tenant, its data and its credentials', async () => {
    const { token } = await proUser();
    const res = await deploy(app, token, 'PostgreSQL', 'Twice');
    const id = res.json.instance.id;
    await waitForStatus(app, token, id, 'running');
    const before = await accessOf(token, id);
    const stored = driver.instances.get(id);
    if (!stored) throw new Error('not on the driver');
    stored.data = 'kept';
    await enqueueInstanceJob(db, 'deploy', id);
    await waitFor(async () => ((await jobsOf(id)).length === 0 ? true : undefined), {
      what: 'the job to end',
    });
    expect(await accessOf(token, id)).toEqual(before);
    expect(driver.instances.get(id)).toMatchObject({ data: 'kept', password: before.password });
  });

  it('reconciles at start: a tenant lost behind its back comes back with the stored credentials', async () => {
    const { token } = await proUser();
    const res = await deploy(app, token, 'MySQL', 'Reconciled');
    const id = res.json.instance.id;
    await waitForStatus(app, token, id, 'running');
    const credentials = await accessOf(token, id);
    await driver.engine('mysql').delete(id);
    expect(driver.instances.has(id)).toBe(false);

    const counts = await reconcileInstances(db);
    expect(counts.deploy).toBeGreaterThanOrEqual(1);
    const back = await waitFor(() => driver.instances.get(id), { what: 'the tenant to be back' });
    expect(back.password).toBe(credentials.password);
    expect(await accessOf(token, id)).toEqual(credentials);
  });

  it('tells the customer when a redeploy moved the database to a new port with TLS', async () => {
    const { token } = await proUser();
    const res = await deploy(app, token, 'MySQL', 'Moved');
    const id = res.json.instance.id;
    await waitForStatus(app, token, id, 'running');
    const before = await accessOf(token, id);
    // The answer of a move onto a server of its own (database-engines.ts): another port, TLS required.
    driver.hooks.deployed = (credentials) => ({ ...credentials, port: 20_042, tls: { caPem: null } });
    await reconcileInstances(db);
    await waitFor(async () => ((await accessOf(token, id)).port === 20_042 ? true : undefined), {
      what: 'the new port',
    });
    const notices = (await call(app, 'GET', '/api/notifications', { token })).json.items as {
      title: string;
      message: string;
    }[];
    expect(notices.find((n) => n.title === 'Connection details changed')?.message).toBe(
      `Your MySQL instance "Moved" now runs on a server of its own. Connect to ${before.host}:20042 (port 20042) ` +
        'over an encrypted connection: its page has the certificate to download and the command to use. ' +
        `Its database, user and password are the same; the old port ${before.port} no longer answers.`,
    );
    // Only once: a deploy that changes nothing says nothing.
    await reconcileInstances(db);
    await waitFor(async () => ((await jobsOf(id)).length === 0 ? true : undefined), { what: 'the redeploy' });
    const again = (await call(app, 'GET', '/api/notifications', { token })).json.items as { title: string }[];
    expect(again.filter((n) => n.title === 'Connection details changed')).toHaveLength(1);
  });

  it('leaves the jobs of a live worker locked, and releases those of a worker that is gone', async () => {
    const { token } = await proUser();
    // A live worker busy with a job: its lock stays.
    const hold = gate();
    driver.hooks.beforeDeploy = () => hold.opened;
    const live = await deploy(app, token, 'MySQL', 'Busy');
    await waitFor(async () => ((await jobsOf(live.json.instance.id))[0]?.locked_by ? true : undefined));
    expect(await recoverAbandonedJobs(db)).toEqual([]);
    expect((await jobsOf(live.json.instance.id))[0]?.locked_by).toMatch(/^pool-/);
    hold.open();
    await waitForStatus(app, token, live.json.instance.id, 'running');

    // A job locked by a worker pool that no longer exists (its process was killed).
    await stopRunner();
    try {
      const orphan = await deploy(app, token, 'PostgreSQL', 'Orphan');
      const id = orphan.json.instance.id;
      await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'pool-dead0000'
                where key = ${`instance:${id}:deploy`}`.execute(db);
      await sql`update graphile_worker._private_job_queues set locked_at = now(), locked_by = 'pool-dead0000'
                where queue_name = ${`instance:${id}`}`.execute(db);
      expect(await recoverAbandonedJobs(db)).toEqual(['pool-dead0000']);
      expect((await jobsOf(id))[0]).toMatchObject({ locked_by: null });
      await startRunner();
      await waitForStatus(app, token, id, 'running');
    } finally {
      if (!runner) await startRunner();
    }
  });

  it('accepts a deploy while the driver starts; its job waits for the start, which does not count against its deadline', async () => {
    const { token } = await proUser();
    // The driver as main.ts sees it before its start has ended: its types unavailable, calls refused.
    // PostgreSQL stays unavailable after the start too (as when its package could not be installed), and
    // MongoDB is not offered at all (as on the local driver).
    const NOT_STARTED = 'The provisioning driver is not started';
    const NO_POSTGRES = 'PostgreSQL needs the host package postgresql (simulated)';
    let started = false;
    const deployCalls: string[] = [];
    const starting: ProvisioningDriver = {
      ...withEngine(driver, 'mysql', (mysql) => ({
        async deploy(spec) {
          deployCalls.push(spec.id);
          if (!started)
            throw new ProvisioningUnavailableError('mysql', unavailable.settingUp('mysql', NOT_STARTED));
          return mysql.deploy(spec);
        },
      })),
      async capabilities(): Promise<Capabilities> {
        const offered = await driver.capabilities();
        const postgresql = unavailable.notOffered('postgresql', NO_POSTGRES);
        const mongodb = unavailable.notOffered('mongodb');
        if (started) return { ...offered, postgresql, mongodb };
        const notYet = unavailable.settingUp('mysql', NOT_STARTED);
        return { ...offered, mysql: notYet, postgresql, mongodb, wordpress: notYet };
      },
    };
    const startup = trackDriverStart(['mysql', 'postgresql', 'wordpress']);
    const appLog: string[] = [];
    const early = createTestApp(db, {
      errorLog: (line) => appLog.push(line),
      provisioner: starting,
      cipher,
      driverStartup: startup,
      jobBudgets: { ...DEFAULT_BUDGETS, deploy: 3000 },
    });
    await stopRunner();
    try {
      runner = await startTestRunner({ ...database, driver: starting, cipher, startup, log: runnerLog });
      const availability = async () =>
        Object.fromEntries(
          (await call(early, 'GET', '/api/instances/capabilities', { token })).json.types.map(
            (t: { type: string; available: boolean; reason: string | null }) => [
              t.type,
              t.reason ?? t.available,
            ],
          ),
        );
      // The new-instance page offers what the start may bring; MongoDB stays off with its reason.
      expect(await availability()).toMatchObject({
        mysql: true,
        postgresql: true,
        wordpress: true,
        mongodb: 'MongoDB is not offered on this server',
      });
      const res = await deploy(early, token, 'MySQL', 'Early');
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      expect(res.json.instance.status).toBe('deploying');
      const id = res.json.instance.id;
      // A type the start cannot bring is refused at once, with its reason.
      const mongo = await deploy(early, token, 'MongoDB', 'Never');
      expect(mongo.status).toBe(409);
      expect(mongo.json.details?.reason).toBe('MongoDB is not offered on this server');

      // The start outlasts the deploy's whole budget; the job waits without calling the driver.
      await waitFor(async () => ((await jobsOf(id))[0]?.locked_by ? true : undefined), {
        what: 'the job to run',
      });
      await sleep(4000);
      const waiting = await call(app, 'GET', `/api/instances/${id}`, { token });
      expect(waiting.json.instance).toMatchObject({ status: 'deploying', statusMessage: null });
      expect(deployCalls).toEqual([]);

      started = true;
      startup.end();
      await waitForStatus(app, token, id, 'running', 10_000);
      expect(deployCalls).toEqual([id]);
      expect((await accessOf(token, id)).password).toBe(driver.instances.get(id)?.password);

      // Once the start has ended, a type still unavailable is refused at once.
      const notOffered = 'PostgreSQL is not offered on this server';
      expect(await availability()).toMatchObject({ mysql: true, postgresql: notOffered });
      const late = await deploy(early, token, 'PostgreSQL', 'Late');
      expect(late.status).toBe(409);
      expect(late.json.details?.reason).toBe(notOffered);
      // The operator's reason goes to the log.
      expect(appLog.join('\n')).toContain(`deploy of postgresql refused: ${NO_POSTGRES}`);
    } finally {
      started = true;
      startup.end();
      await stopRunner();
      await startRunner();
    }
  });

  it('answers 202 when a password change takes longer than the wait, and applies it afterwards', async () => {
    const { token } = await proUser();
    const res = await deploy(app, token, 'MySQL', 'Slow password');
    const id = res.json.instance.id;
    await waitForStatus(app, token, id, 'running');
    const old = await accessOf(token, id);
    driver.hooks.beforePassword = () => sleep(800);
    const impatient = createTestApp(db, { provisioner: driver, cipher, passwordWaitMs: 200 });
    const changed = await call(impatient, 'POST', `/api/instances/${id}/password`, {
      token,
      body: { type: 'mysql', password: 'Later-applied-1' },
    });
    expect(changed.status).toBe(202);
    expect(changed.json).toEqual({ message: 'Password change initiated' });
    expect(driver.instances.get(id)?.password).toBe(old.password);
    await waitFor(async () =>
      (await accessOf(token, id)).password === 'Later-applied-1' ? true : undefined,
    );
    expect(driver.instances.get(id)?.password).toBe('Later-applied-1');
  });

  it('answers 502 with the reason when the server refuses a password change, and keeps the old one', async () => {
    const { token } = await proUser();
    const res = await deploy(app, token, 'PostgreSQL', 'Refuses');
    const id = res.json.instance.id;
    await waitForStatus(app, token, id, 'running');
    const old = await accessOf(token, id);
    driver.hooks.beforePassword = async () => {
      throw new ValidationError('password rejected by policy (simulated)');
    };
    const changed = await call(app, 'POST', `/api/instances/${id}/password`, {
      token,
      body: { type: 'PostgreSQL', password: 'Rejected-pass-1' },
    });
    expect(changed.status).toBe(502);
    expect(changed.json).toEqual({
      error: 'operation_failed',
      message: 'Password change failed: password rejected by policy (simulated)',
      details: { requestId: changed.headers.get('x-request-id') },
    });
    expect(await accessOf(token, id)).toEqual(old);
    expect(driver.instances.get(id)?.password).toBe(old.password);
    expect((await waitForStatus(app, token, id, 'running')).statusMessage).toBeNull();
    expect(await titlesOf(token)).toContain('Password change failed');
  });
});
