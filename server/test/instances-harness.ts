import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { BackupVault } from '../src/backup-storage/backup-vault.ts';
import type { Db } from '../src/db/database.ts';
import { type JobRunner, startJobRunner } from '../src/jobs/job-runner.ts';
import type { Cipher } from '../src/lib/crypto.ts';
import { createBackupTasks } from '../src/modules/instances/backups/instance-backups.tasks.ts';
import { createInstanceTasks } from '../src/modules/instances/jobs/instances.tasks.ts';
import type { DriverStartup } from '../src/modules/instances/queue/driver-startup.ts';
import { createNotificationsService } from '../src/modules/notifications/notifications.service.ts';
import type { ProvisioningDriver } from '../src/provisioning/driver.ts';
import { type ControlGroups, hostControlGroups } from '../src/provisioning/local/host/control-groups.ts';
import { createLocalDriver } from '../src/provisioning/local/local-driver.ts';
import { call, type TestApp } from './create-test-app.ts';
import { ensureTestPackages } from './provisioning/db-clients.ts';
import { killLeftoverServers } from './provisioning/leftover-servers.ts';
import { ensureSiteTestPackages } from './provisioning/site-clients.ts';
import { removeSiteUsersUnder } from './provisioning/site-sandbox.ts';
import { removeTestGroups } from './provisioning/test-driver-cleanup.ts';

/** The real local driver on its own data root (MariaDB and PostgreSQL 15 servers it runs), one per file. */
export interface TestProvisioning {
  driver: ProvisioningDriver;
  root: string;
  logs: string[];
  /** The driver's control groups, when the test gave it a parent of its own. */
  groups?: ControlGroups;
  stop(): Promise<void>;
}

/**
 * `sites: true` runs the WordPress site runtime too (Caddy, php-fpm, SFTP on free ports), as main.ts does;
 * `mysqlDiskMb` gives MySQL instances a smaller database than the default 1 GiB (quick to fill).
 */
export async function startTestProvisioning(
  options: {
    sites?: boolean;
    mysqlDiskMb?: number;
    siteDiskMb?: number;
    /** Default `shared`: the tests that read the shared servers as their admin (adminCli). */
    databaseServers?: 'own' | 'shared';
    postgresDiskMb?: number;
    n8nDiskMb?: number;
    /** A control group parent of the test's own (removed with everything in it at stop); default `berth`. */
    cgroupParent?: string;
  } = {},
): Promise<TestProvisioning> {
  await ensureTestPackages();
  if (options.sites) await ensureSiteTestPackages();
  // Directly under /tmp: the mysql, postgres and caddy users (and site users) must be able to traverse it.
  const root = await mkdtemp('/tmp/berth-instances-');
  const logs: string[] = [];
  const driver = createLocalDriver({
    dataRoot: root,
    sites: options.sites ? { diskMb: options.siteDiskMb } : undefined,
    mysqlDiskMb: options.mysqlDiskMb,
    postgresDiskMb: options.postgresDiskMb,
    n8n: options.n8nDiskMb ? { diskMb: options.n8nDiskMb } : undefined,
    databaseServers: options.databaseServers ?? 'shared',
    cgroupParent: options.cgroupParent,
    log: (line) => logs.push(line),
  });
  const groups = options.cgroupParent ? hostControlGroups(options.cgroupParent) : undefined;
  const stop = async () => {
    await driver.stop().catch(() => {});
    killLeftoverServers(root); // only after a failure
    await removeSiteUsersUnder(root);
    if (groups) await removeTestGroups(groups);
    await rm(root, { recursive: true, force: true });
  };
  try {
    await driver.start();
  } catch (error) {
    await stop();
    throw error;
  }
  return { driver, root, logs, groups, stop };
}

/** The job runner main.ts starts, on the test database, running the instance tasks against `driver`. */
export function startTestRunner(options: {
  db: Db;
  pool: pg.Pool;
  url: string;
  driver: ProvisioningDriver;
  cipher: Cipher;
  log?: string[];
  /** Where the driver's start stands (jobs wait for it); absent: nothing is starting. */
  startup?: DriverStartup;
  /** The services' backup storage: the backup and restore jobs run too. */
  vault?: BackupVault;
}): Promise<JobRunner> {
  const { db, driver, cipher, startup, vault } = options;
  const notifications = createNotificationsService({ db });
  return startJobRunner({
    pgPool: options.pool,
    connectionString: options.url,
    taskList: {
      ...createInstanceTasks({ db, driver, cipher, notifications, startup }),
      ...(vault && createBackupTasks({ db, driver, cipher, vault, notifications })),
    },
    pollIntervalMs: 200,
    log: (line) => options.log?.push(line),
  });
}

/** Polls until `find` answers something other than undefined. */
export async function waitFor<T>(
  find: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 15_000, what = 'condition' } = {},
): Promise<T> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(50)) {
    const found = await find();
    if (found !== undefined) return found;
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Waits until the instance has `status` (GET /api/instances/{id}); answers the instance. */
export async function waitForStatus(
  app: TestApp,
  token: string,
  id: string,
  status: string,
  timeoutMs = 15_000,
) {
  let last: unknown;
  try {
    return await waitFor(
      async () => {
        const res = await call(app, 'GET', `/api/instances/${id}`, { token });
        last = res.json;
        return res.status === 200 && res.json.instance.status === status ? res.json.instance : undefined;
      },
      { timeoutMs, what: `instance ${id} to be ${status}` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last answer ${JSON.stringify(last)}`);
  }
}

/** Waits until the instance's backup `backupId` is no longer running; answers it (as the API lists it). */
export async function waitForBackup(
  app: TestApp,
  token: string,
  id: string,
  backupId: string,
  timeoutMs = 60_000,
) {
  return waitFor(
    async () => {
      const res = await call(app, 'GET', `/api/instances/${id}/backups`, { token });
      const found = Array.isArray(res.json) ? res.json.find((b) => b.id === backupId) : undefined;
      return found && found.status !== 'running' ? found : undefined;
    },
    { timeoutMs, what: `backup ${backupId} of ${id} to end` },
  );
}

/** Waits until GET /api/instances/{id} answers 404 (the delete job removed it). */
export async function waitForGone(
  app: TestApp,
  token: string,
  id: string,
  timeoutMs = 15_000,
): Promise<void> {
  await waitFor(
    async () =>
      (await call(app, 'GET', `/api/instances/${id}`, { token })).status === 404 ? true : undefined,
    { timeoutMs, what: `instance ${id} to be gone` },
  );
}
