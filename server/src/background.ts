// The work a server does beside answering requests, declared once as a list: main.ts starts the tasks
// one after another and stops the started ones in the reverse order. Nothing starts when services are
// built (the tests, the OpenAPI generator and the benches build them too).
import type pg from 'pg';
import { prepareHost } from './driver-config.ts';
import type { ServerConfig } from './env.ts';
import { collectJobGarbage, recoverAbandonedJobs, startJobRunner } from './jobs/job-runner.ts';
import type { LogLine } from './lib/error-reference.ts';
import { startIntervalTask } from './lib/interval-task.ts';
import {
  BACKUP_SCHEDULE_INTERVAL_MS,
  ORPHAN_GRACE_DAYS,
  STORE_SWEEP_INTERVAL_MS,
} from './modules/instances/backups/backup-schedule.ts';
import type { TrackedDriverStartup } from './modules/instances/queue/driver-startup.ts';
import { reconcileInstances } from './modules/instances/queue/instance-jobs.ts';
import { platformBackupRound } from './modules/platform-backups/platform-backups.ts';
import { TRIAL_NOTICES_INTERVAL_MS } from './modules/subscriptions/trial-notices.service.ts';
import { COMPACT_INTERVAL_MS, SAMPLE_INTERVAL_MS } from './modules/usage/usage.service.ts';
import type { Services } from './services.ts';

export interface BackgroundTask {
  name: string;
  /** Starts the work; the tasks after it wait until this resolves (the driver's start takes a while). */
  start(): Promise<void>;
  /** Stops the work and waits for a run in progress. */
  stop(): Promise<void>;
}

/** How often submitted MetaMask transactions are checked on chain (when ETH_RPC_URL is set). */
const METAMASK_CHECK_INTERVAL_MS = 60_000;
/** How often help desk images never attached to a ticket (and stray files) are looked for. */
const HELP_UPLOAD_SWEEP_INTERVAL_MS = 60 * 60_000;
/** How often the visitor hash of affiliate clicks older than CLICK_VISITOR_DATA_DAYS is cleared. */
const AFFILIATE_CLICK_RETENTION_INTERVAL_MS = 6 * 60 * 60_000;
/** How often a server looks for jobs left locked by a crashed server, and clears unused job queues. */
const JOB_RECOVERY_INTERVAL_MS = 15_000;
const JOB_GARBAGE_INTERVAL_MS = 60 * 60_000;
/** How often pending custom domains are looked at (each on its own slowing schedule, see findDomainsDue). */
const DOMAIN_CHECK_INTERVAL_MS = 60_000;

export interface BackgroundDeps {
  config: ServerConfig;
  services: Services;
  /** The pool jobs run on (the API's) and its database's URL, for the runner's own connection. */
  pool: pg.Pool;
  connectionString: string;
  /** Where the driver's start stands; ended by the driver task. Undefined: no driver starts. */
  startup: TrackedDriverStartup | undefined;
  log: LogLine;
}

/**
 * The server's background work, in the order it starts. The platform's own timers first; then the
 * provisioning driver (host packages, its servers), and only once it runs the job runner (instance jobs
 * need the driver) and the checks that use it. With PROVISIONER=none the runner runs the platform's
 * jobs only (announcements, mail).
 */
export function backgroundTasks(deps: BackgroundDeps): BackgroundTask[] {
  const { services, log } = deps;
  const { db } = services;
  const platform = [
    everyInterval('trial notices', TRIAL_NOTICES_INTERVAL_MS, services.trialNotices.sendDue, log),
    everyInterval(
      'MetaMask checks',
      METAMASK_CHECK_INTERVAL_MS,
      services.providers.verifyMetaMaskPayments,
      log,
    ),
    everyInterval(
      'help desk upload sweep',
      HELP_UPLOAD_SWEEP_INTERVAL_MS,
      services.helpDesk.sweepOrphans,
      log,
    ),
    everyInterval(
      'affiliate click retention',
      AFFILIATE_CLICK_RETENTION_INTERVAL_MS,
      services.affiliates.referrals.applyClickRetention,
      log,
    ),
  ];
  if (deps.config.provisioning.driver === 'none') {
    return [
      ...platform,
      announce('provisioning: off (PROVISIONER=none): every instance type is unavailable', log),
      jobRunner(deps, services.platformJobTasks, 'jobs: runner started (announcements and mail only)'),
    ];
  }
  return [
    ...platform,
    provisioningDriver(deps),
    {
      name: 'database storage alerts',
      start: async () => services.storageAlerts.start(log),
      stop: () => services.storageAlerts.stop(),
    },
    {
      name: 'instance live states',
      start: async () => services.instanceLiveStates.start(log),
      stop: () => services.instanceLiveStates.stop(),
    },
    jobRunner(deps, services.jobTasks, 'jobs: runner started', async () => {
      const unlocked = await recoverAbandonedJobs(db);
      if (unlocked.length > 0) log(`jobs: released the jobs of stopped workers ${unlocked.join(', ')}`);
      const reconciled = await reconcileInstances(db);
      if (reconciled.deploy + reconciled.delete > 0)
        log(`instances: reconciling ${reconciled.deploy} to deploy again, ${reconciled.delete} to delete`);
      const interrupted = await services.backupSchedule.cleanUpInterrupted();
      if (interrupted.length > 0)
        log(`backups: ${interrupted.join(', ')} cut short by a stop, marked failed`);
    }),
    everyInterval(
      'backups',
      BACKUP_SCHEDULE_INTERVAL_MS,
      async () => {
        const scheduled = await services.backupSchedule.scheduleDue();
        const expired = await services.backupSchedule.applyRetention();
        if (scheduled + expired.length > 0)
          log(`backups: ${scheduled} scheduled, ${expired.length} past their plan's days removed`);
        await platformBackupRound(
          services.vault,
          deps.connectionString,
          deps.config.backups,
          services.now,
          log,
        );
      },
      log,
    ),
    // Places in the store no backup names, and backups whose files are gone: counted for the admin,
    // the former removed after their grace period.
    everyInterval(
      'backup store sweep',
      STORE_SWEEP_INTERVAL_MS,
      async () => {
        const { orphans, missing, removed } = await services.backupSchedule.sweepStore();
        if (orphans.length + missing.length > 0)
          log(
            `backups: the store holds ${orphans.length} places no backup names (${removed.length} removed after ` +
              `${ORPHAN_GRACE_DAYS} days: ${removed.join(', ') || 'none'}); ${missing.length} backups miss ` +
              `files${missing.length > 0 ? `: ${missing.join(', ')}` : ''}`,
          );
      },
      log,
    ),
    everyInterval(
      'job recovery',
      JOB_RECOVERY_INTERVAL_MS,
      async () => {
        const ids = await recoverAbandonedJobs(db);
        if (ids.length > 0) log(`jobs: released the jobs of stopped workers ${ids.join(', ')}`);
      },
      log,
    ),
    everyInterval('job queue cleanup', JOB_GARBAGE_INTERVAL_MS, () => collectJobGarbage(db), log),
    // What instances use: a sample of each every 15 s, and the one job that rolls up and expires them.
    everyInterval('usage sampling', SAMPLE_INTERVAL_MS, () => services.usage.collect(), log),
    everyInterval('usage compaction', COMPACT_INTERVAL_MS, () => services.usage.compact(), log),
    announce(
      `domains: TXT checks of pending custom domains through ${deps.config.dnsServers?.join(', ') ?? 'the system resolvers'}`,
      log,
    ),
    everyInterval(
      'custom domain checks',
      DOMAIN_CHECK_INTERVAL_MS,
      () => services.instances.checkDueDomains(),
      log,
    ),
  ];
}

/**
 * Starts `tasks` one after another without holding the caller; `stop()` stops starting more, waits for
 * the one starting, and stops the started ones, last first. A task whose start fails ends the starting
 * (what follows it needs it), and is said in the log.
 */
export function startInOrder(tasks: readonly BackgroundTask[], log: LogLine): { stop(): Promise<void> } {
  const started: BackgroundTask[] = [];
  let stopping = false;
  const starting = (async () => {
    for (const task of tasks) {
      if (stopping) return;
      started.push(task);
      try {
        await task.start();
      } catch (error) {
        log(`${task.name} failed to start: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    }
  })();
  return {
    async stop() {
      stopping = true;
      await starting;
      for (const task of started.reverse()) await task.stop();
    },
  };
}

/** `run` now and then every `everyMs`, never two runs at once (lib/interval-task.ts). */
function everyInterval(
  name: string,
  everyMs: number,
  run: () => Promise<unknown>,
  log: LogLine,
): BackgroundTask {
  let task: { stop(): Promise<void> } | undefined;
  return {
    name,
    async start() {
      task = startIntervalTask(name, everyMs, run, log);
    },
    async stop() {
      await task?.stop();
    },
  };
}

/** A line in the log at its place in the order (nothing to stop). */
function announce(line: string, log: LogLine): BackgroundTask {
  return { name: line, start: async () => log(line), stop: async () => {} };
}

/**
 * The provisioning driver: what it runs from on the host, then its servers. Until its start has ended,
 * deploys of the types it may bring are accepted and their jobs wait (modules/instances/queue/driver-startup.ts);
 * a start that fails leaves the types unavailable, with the reason in the capabilities.
 */
function provisioningDriver({ config, services, startup, log }: BackgroundDeps): BackgroundTask {
  const { driver } = services;
  const prov = config.provisioning;
  return {
    name: 'provisioning',
    async start() {
      log(
        `provisioning: ${prov.driver} driver, data in ${prov.dataDir}, credentials name host ${prov.publicHost}, ` +
          `sites on *.${prov.sites.baseDomain} (listening on ${prov.sites.listenHost}, TLS ${prov.sites.tls})`,
      );
      try {
        await prepareHost(config, log);
        await driver.start();
      } catch (error) {
        log(`provisioning: the driver did not start: ${(error as Error).message}`);
      } finally {
        startup?.end();
      }
      const available = Object.entries(await driver.capabilities())
        .filter(([, capability]) => capability.available)
        .map(([type]) => type);
      log(`provisioning: ready for ${available.length > 0 ? available.join(', ') : 'no instance type'}`);
    },
    async stop() {
      await driver.stop().catch((error: unknown) => log(`provisioning: stop failed: ${String(error)}`));
    },
  };
}

/** The job runner (graphile-worker) with `taskList`, after `before` (recovery of what a crash left). */
function jobRunner(
  { pool, connectionString, log }: BackgroundDeps,
  taskList: Services['jobTasks'],
  startedLine: string,
  before: () => Promise<void> = async () => {},
): BackgroundTask {
  let runner: { stop(): Promise<void> } | undefined;
  return {
    name: 'jobs',
    async start() {
      await before();
      runner = await startJobRunner({ pgPool: pool, connectionString, taskList, log });
      log(startedLine);
    },
    async stop() {
      await runner?.stop();
    },
  };
}
