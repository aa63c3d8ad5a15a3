import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { BACKUP_S3_NAMES, type BackupConfig, backupConfigOf, backupEnv } from './env-backups.ts';
import { paymentsConfigOf, paymentsEnv } from './env-payments.ts';
import { type ProvisioningConfig, provisioningConfigOf, provisioningEnv } from './env-provisioning.ts';
import { swarmEnv } from './env-swarm.ts';
import { parseTrustedProxies, type TrustedProxies } from './lib/client-address.ts';
import { ENCRYPTION_KEY_RULE, parseEncryptionKey } from './lib/crypto.ts';
import { CLOUDFLARE_SITEVERIFY_URL } from './lib/turnstile.ts';
import type { PaymentsConfig } from './modules/payments/payments.config.ts';

/**
 * The only reader of process.env. Every setting the server takes is listed, validated and documented
 * here (and in the README's configuration table): the core ones in this file, the provisioning, swarm,
 * payment and backup ones in env-provisioning.ts, env-swarm.ts, env-payments.ts and env-backups.ts,
 * which it composes (in this order, which is the order of the messages about them).
 */

const DNS_RESOLVER_RULE =
  'DNS_RESOLVER must be a comma-separated list of IP addresses with optional ports, such as 1.1.1.1,127.0.0.1:5353,[::1]:53';

/** One DNS server as node:dns's setServers takes it: `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53`. */
function dnsServer(entry: string): string | undefined {
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(entry);
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec(entry);
  const [, host, port] = bracketed ?? v4 ?? [undefined, entry, undefined];
  if (!host || isIP(host) === 0) return undefined;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return undefined;
  if (port === undefined) return host;
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

function parseDnsServers(value: string): string[] | undefined {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const servers = entries.map(dnsServer);
  if (servers.length === 0 || servers.some((server) => server === undefined)) return undefined;
  return servers as string[];
}

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  TRUSTED_PROXY: z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      const parsed = parseTrustedProxies(value);
      if ('invalid' in parsed)
        ctx.addIssue({
          code: 'custom',
          message: `TRUSTED_PROXY must be comma-separated IPv4/IPv6 addresses or CIDRs (such as 10.0.0.0/8, ::1); "${parsed.invalid}" is not one`,
        });
    }),
  BERTH_DATA_DIR: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
    .optional(),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  PUBLIC_URL: z.url().optional(),
  WEB_DIST_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Berth <no-reply@localhost>'),
  SUPPORT_EMAIL: z
    .string()
    .regex(/^\S+@\S+$/, 'SUPPORT_EMAIL must be an e-mail address')
    .default('support@localhost'),
  AFFILIATE_MIN_PAYOUT: z.coerce
    .number({ error: 'AFFILIATE_MIN_PAYOUT must be an amount, e.g. 50' })
    .positive('AFFILIATE_MIN_PAYOUT must be above 0')
    .max(100_000, 'AFFILIATE_MIN_PAYOUT must be at most 100000')
    .default(50),
  TURNSTILE_SITE_KEY: z.string().min(1).optional(),
  TURNSTILE_SECRET_KEY: z.string().min(1).optional(),
  TURNSTILE_VERIFY_URL: z.url().default(CLOUDFLARE_SITEVERIFY_URL),
  ...provisioningEnv.shape,
  ...paymentsEnv.shape,
  DNS_RESOLVER: z
    .string()
    .refine((value) => parseDnsServers(value) !== undefined, DNS_RESOLVER_RULE)
    .optional(),
  ENCRYPTION_KEY: z
    .string()
    .refine((value) => parseEncryptionKey(value) !== undefined, ENCRYPTION_KEY_RULE)
    .optional(),
  ...backupEnv.shape,
  ...swarmEnv.shape,
});

export interface ServerConfig {
  /** The whole environment, for installs the server runs itself (npm: proxy and registry settings). */
  installEnv: Record<string, string | undefined>;
  port: number;
  host: string;
  /** Proxies whose X-Forwarded-For is believed; none by default. */
  trustedProxies: TrustedProxies;
  /** Absolute path of the data directory (embedded PostgreSQL, generated secrets). */
  dataDir: string;
  databaseUrl: string | undefined;
  jwtSecret: string | undefined;
  publicUrl: string;
  webDistDir: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** SMTP server for outgoing mail; without it mail goes to `<dataDir>/outbox`. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Where contact-form messages are sent. */
  supportEmail: string;
  /** The smallest affiliate payout, in minor units (AFFILIATE_MIN_PAYOUT in currency units). */
  affiliateMinimumPayoutMinor: number;
  /** Cloudflare Turnstile; undefined turns the bot check off. */
  turnstile: { siteKey: string; secretKey: string; verifyUrl: string } | undefined;
  provisioning: ProvisioningConfig;
  /** Key of the secrets kept encrypted in the database; undefined: generated into `<dataDir>/secrets`. */
  encryptionKey: Buffer | undefined;
  /** Payment providers with keys (each one absent when its keys are). */
  payments: PaymentsConfig;
  /** DNS servers for custom-domain TXT checks (`host:port`); undefined: the system's resolvers. */
  dnsServers: string[] | undefined;
  backups: BackupConfig;
}

function trustedProxiesOf(value: string): TrustedProxies {
  const parsed = parseTrustedProxies(value);
  if ('invalid' in parsed) throw new Error(`Invalid configuration:\n  TRUSTED_PROXY: ${parsed.invalid}`);
  return parsed;
}

/** The checkout this server runs from. */
const CHECKOUT_DIR = new URL('../../', import.meta.url).pathname;

/**
 * The default data directory: the checkout's `data/`, whichever folder the server starts in (`npm start`
 * runs it in server/). An install whose database is still in server/data, where the relative default
 * `./data` put it before, keeps using that one.
 */
export function defaultDataDir(checkout = CHECKOUT_DIR): string {
  const data = path.join(checkout, 'data');
  const earlier = path.join(checkout, 'server', 'data');
  return !existsSync(data) && existsSync(path.join(earlier, 'postgres')) ? earlier : data;
}

export function readConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.BERTH_DATA_DIR ?? defaultDataDir());
  const together = (names: string[], values: (string | undefined)[]) => {
    if (values.some(Boolean) && !values.every(Boolean))
      throw new Error(
        `Invalid configuration:\n  ${names.join(', ')} must be set together (or all left unset)`,
      );
  };
  together(['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'], [e.STRIPE_SECRET_KEY, e.STRIPE_WEBHOOK_SECRET]);
  together(
    ['PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET', 'PAYPAL_WEBHOOK_ID'],
    [e.PAYPAL_CLIENT_ID, e.PAYPAL_CLIENT_SECRET, e.PAYPAL_WEBHOOK_ID],
  );
  together(
    ['INSTANCE_TLS_CERT_FILE', 'INSTANCE_TLS_KEY_FILE'],
    [e.INSTANCE_TLS_CERT_FILE, e.INSTANCE_TLS_KEY_FILE],
  );
  together(
    [...BACKUP_S3_NAMES],
    BACKUP_S3_NAMES.map((name) => e[name]),
  );
  if (e.PROVISIONER === 'swarm' && !e.SWARM_REGIONS) {
    throw new Error(
      'Invalid configuration:\n  PROVISIONER=swarm needs SWARM_REGIONS (which swarm serves which region)',
    );
  }
  if (Boolean(e.TURNSTILE_SITE_KEY) !== Boolean(e.TURNSTILE_SECRET_KEY)) {
    throw new Error(
      'Invalid configuration:\n  TURNSTILE_SITE_KEY and TURNSTILE_SECRET_KEY must be set together (or both left unset)',
    );
  }
  return {
    installEnv: env,
    port: e.PORT,
    host: e.HOST,
    trustedProxies: trustedProxiesOf(e.TRUSTED_PROXY),
    dataDir,
    databaseUrl: e.DATABASE_URL,
    jwtSecret: e.JWT_SECRET,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? new URL('../../web/dist', import.meta.url).pathname),
    logLevel: e.LOG_LEVEL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    supportEmail: e.SUPPORT_EMAIL,
    affiliateMinimumPayoutMinor: Math.round(e.AFFILIATE_MIN_PAYOUT * 100),
    turnstile:
      e.TURNSTILE_SITE_KEY && e.TURNSTILE_SECRET_KEY
        ? {
            siteKey: e.TURNSTILE_SITE_KEY,
            secretKey: e.TURNSTILE_SECRET_KEY,
            verifyUrl: e.TURNSTILE_VERIFY_URL,
          }
        : undefined,
    provisioning: provisioningConfigOf(e, dataDir),
    dnsServers: e.DNS_RESOLVER === undefined ? undefined : parseDnsServers(e.DNS_RESOLVER),
    encryptionKey: e.ENCRYPTION_KEY === undefined ? undefined : parseEncryptionKey(e.ENCRYPTION_KEY),
    backups: backupConfigOf(e),
    payments: paymentsConfigOf(e),
  };
}
