import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createApp, VERSION } from './app.ts';
import { connectDatabase } from './db/connect.ts';
import { createDb } from './db/create-db.ts';
import { migrateToLatest } from './db/migrator.ts';
import { readConfig, type ServerConfig } from './env.ts';
import { startIntervalTask } from './lib/interval-task.ts';
import { createOutboxMailer, createSmtpMailer, type Mailer } from './lib/mailer.ts';
import { startPgListener } from './lib/pg-listener.ts';
import { persistentSecret } from './lib/secrets.ts';
import { createTurnstileVerifier, type TurnstileVerifier, turnstileOff } from './lib/turnstile.ts';
import { createNotificationHub, NOTIFICATIONS_CHANNEL } from './modules/notifications/notifications.hub.ts';
import { createNotificationsService } from './modules/notifications/notifications.service.ts';
import {
  createTrialNoticesService,
  TRIAL_NOTICES_INTERVAL_MS,
} from './modules/subscriptions/trial-notices.service.ts';

const log = (line: string) => console.log(`[berth] ${line}`);

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

async function main() {
  const config = readConfig();
  await mkdir(config.dataDir, { recursive: true });

  const database = await connectDatabase(config.databaseUrl, config.dataDir, (line) => {
    if (config.logLevel === 'debug') console.log(`[postgres] ${line}`);
  });
  log(
    `database: ${database.source === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}/postgres` : 'DATABASE_URL'}`,
  );
  const db = createDb(database.url);
  const applied = await migrateToLatest(db);
  if (applied.length > 0) log(`migrations applied: ${applied.join(', ')}`);

  // Every process LISTENs on one dedicated connection and hands notifications to its open streams.
  const hub = createNotificationHub();
  const listener = await startPgListener({
    connectionString: database.url,
    channel: NOTIFICATIONS_CHANNEL,
    onMessage: hub.publish,
    onReconnect: hub.resync,
    log,
  });

  const jwtSecret = config.jwtSecret ?? (await persistentSecret(config.dataDir, 'jwt-secret'));
  const app = createApp({
    db,
    jwtSecret,
    mailer: createMailer(config),
    turnstile: createTurnstile(config),
    notificationHub: hub,
    avatarsDir: path.join(config.dataDir, 'avatars'),
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    webDistDir: config.webDistDir,
  });

  const now = () => new Date();
  const trialNotices = createTrialNoticesService({
    db,
    now,
    notifications: createNotificationsService({ db }),
  });
  const trialTask = startIntervalTask('trial notices', TRIAL_NOTICES_INTERVAL_MS, trialNotices.sendDue, log);

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    log(`Berth ${VERSION} listening on ${config.publicUrl} (port ${info.port})`);
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    server.close();
    await trialTask.stop();
    await listener.stop();
    await db.destroy();
    await database.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(`[berth] failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
