// The steps main() takes before the server listens, one function each: the platform's database, the
// services' settings from the configuration (keys, mail, bot check, folders), and the start-up log.
import path from 'node:path';
import { connectDatabase } from './db/connect.ts';
import { createDb, createPool } from './db/create-db.ts';
import type { Db } from './db/database.ts';
import { migrateToLatest } from './db/migrator.ts';
import type { ServerConfig } from './env.ts';
import { migrateJobQueue } from './jobs/job-queue.ts';
import { createCipher, parseEncryptionKey } from './lib/crypto.ts';
import type { LogLine } from './lib/error-reference.ts';
import { createOutboxMailer, createSmtpMailer, type Mailer } from './lib/mailer.ts';
import { persistentSecret } from './lib/secrets.ts';
import { createTurnstileVerifier, type TurnstileVerifier, turnstileOff } from './lib/turnstile.ts';
import { prepareSetupToken } from './modules/auth/first-admin.ts';
import type { ServicesConfig } from './services.ts';

export interface PlatformDatabase {
  db: Db;
  /** One pool for the API and the job runner. */
  pool: ReturnType<typeof createPool>;
  url: string;
  /** Closes the pool, then stops the embedded PostgreSQL (if it is ours). */
  close(): Promise<void>;
}

/** The platform's PostgreSQL (DATABASE_URL or the embedded one), migrated, with the job queue's schema. */
export async function openDatabase(config: ServerConfig, log: LogLine): Promise<PlatformDatabase> {
  const database = await connectDatabase(config.databaseUrl, config.dataDir, (line) => {
    if (config.logLevel === 'debug') console.log(`[postgres] ${line}`);
  });
  log(
    `database: ${database.source === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}/postgres` : 'DATABASE_URL'}`,
  );
  const pool = createPool(database.url, 20);
  const db = createDb(pool);
  const applied = await migrateToLatest(db);
  // One short line: a fresh database applies them all.
  if (applied.length > 0)
    log(
      `migrations applied: ${applied.length === 1 ? applied[0] : `${applied.length}, ${applied[0]} to ${applied.at(-1)}`}`,
    );
  await migrateJobQueue(pool);
  return {
    db,
    pool,
    url: database.url,
    async close() {
      await db.destroy();
      await database.stop();
    },
  };
}

/** While no admin exists: the one-time setup token that makes the registering account the admin. */
export async function announceSetupToken(db: Db, publicUrl: string, log: LogLine): Promise<void> {
  const setupToken = await prepareSetupToken(db);
  if (!setupToken) return;
  log(
    'first admin: no admin exists yet. The first account registered from this machine becomes the admin, ' +
      `or register from anywhere with the one-time setup token ${setupToken} ` +
      `(${publicUrl}/register?setupToken=${setupToken})`,
  );
}

/** What main passes to createServices besides the database, the hub and the driver. */
type ServiceSettings = Omit<
  ServicesConfig,
  'db' | 'notificationHub' | 'provisioner' | 'driverStartup' | 'errorLog'
>;

/**
 * The services' settings from the configuration: the signing and encryption keys (generated once into
 * `<dataDir>/secrets` when the environment gives none), the mailer, the bot check and the folders.
 */
export async function serviceSettings(config: ServerConfig, log: LogLine): Promise<ServiceSettings> {
  const { dataDir } = config;
  const jwtSecret = config.jwtSecret ?? (await persistentSecret(dataDir, 'jwt-secret'));
  const encryptionKey =
    config.encryptionKey ?? parseEncryptionKey(await persistentSecret(dataDir, 'encryption-key', 32));
  if (!encryptionKey) throw new Error(`${dataDir}/secrets/encryption-key is not a 32-byte key`);
  return {
    jwtSecret,
    cipher: createCipher(encryptionKey),
    mailer: createMailer(config, log),
    turnstile: createTurnstile(config, log),
    avatarsDir: path.join(dataDir, 'avatars'),
    helpUploadsDir: path.join(dataDir, 'help-uploads'),
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    affiliateMinimumPayoutMinor: config.affiliateMinimumPayoutMinor,
    payments: config.payments,
    dnsServers: config.dnsServers,
  };
}

function createMailer(config: ServerConfig, log: LogLine): Mailer {
  if (config.smtpUrl) {
    const { protocol, host } = new URL(config.smtpUrl);
    log(`mail: SMTP ${protocol}//${host}, from ${config.mailFrom}`);
    return createSmtpMailer(config.smtpUrl, config.mailFrom);
  }
  const outbox = path.join(config.dataDir, 'outbox');
  log(`mail: no SMTP_URL, so mail is written to ${outbox} and its links are printed here`);
  return createOutboxMailer(outbox, config.mailFrom, log);
}

function createTurnstile(config: ServerConfig, log: LogLine): TurnstileVerifier {
  if (!config.turnstile) {
    log('bot check: off (set TURNSTILE_SITE_KEY and TURNSTILE_SECRET_KEY to turn Turnstile on)');
    return turnstileOff;
  }
  log(`bot check: Turnstile on, verified at ${config.turnstile.verifyUrl}`);
  return createTurnstileVerifier(config.turnstile);
}

/** The start-up log's lines on whom the server believes (proxies) and how it takes payments. */
export function announceSettings(config: ServerConfig, log: LogLine): void {
  if (config.trustedProxies.cidrs.length > 0)
    log(`proxies: X-Forwarded-For believed from ${config.trustedProxies.cidrs.join(', ')}`);
  const { stripe, paypal, ethereum } = config.payments;
  log(
    `payments: Stripe ${stripe ? `on (${stripe.apiBase ?? 'api.stripe.com'})` : 'off (no STRIPE_SECRET_KEY)'}, ` +
      `PayPal ${paypal ? `on (${paypal.apiBase})` : 'off (no PAYPAL_CLIENT_ID)'}, ` +
      `MetaMask checks ${ethereum ? `on chain via ${new URL(ethereum.rpcUrl).host}` : 'manual (no ETH_RPC_URL)'}`,
  );
}
