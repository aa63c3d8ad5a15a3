import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { REGIONS } from '@berth/openapi/rules';
import { z } from 'zod';
import { parseTrustedProxies, type TrustedProxies } from './lib/client-address.ts';
import { ENCRYPTION_KEY_RULE, parseEncryptionKey } from './lib/crypto.ts';
import { CLOUDFLARE_SITEVERIFY_URL } from './lib/turnstile.ts';
import type { PaymentsConfig } from './modules/payments/payments.config.ts';

/** The provisioning drivers this build has (`kubernetes` comes later). */
/** `none` runs the platform without deploying anything: every instance type is unavailable, with that reason. */
/** `swarm` places instances on one Docker Swarm per region (SWARM_REGIONS). */
const PROVISIONERS = ['local', 'swarm', 'none'] as const;

const SWARM_REGIONS_RULE =
  'SWARM_REGIONS must be a comma-separated list of <region>=<Docker endpoint>, such as us-east-1=unix:///run/docker.sock,eu-west-1=tcp://10.0.2.5:2376';
const SWARM_IMAGE_TYPES = ['mysql', 'postgresql', 'mongodb', 'wordpress', 'n8n'] as const;
const SWARM_IMAGES_RULE =
  'SWARM_IMAGES must be a comma-separated list of <type>=<image> (types: mysql, postgresql, mongodb, wordpress, n8n), such as mongodb=mongo:7.0';

/** `a=b,c=d` → [[a, b], [c, d]], or undefined when an entry has no `=`. */
function pairs(value: string): [string, string][] | undefined {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf('=');
      return at > 0
        ? ([entry.slice(0, at).trim(), entry.slice(at + 1).trim()] as [string, string])
        : undefined;
    });
  return entries.every((entry) => entry !== undefined && entry[1] !== '')
    ? (entries as [string, string][])
    : undefined;
}

function swarmRegionsOf(value: string): Record<string, string> | undefined {
  const entries = pairs(value);
  if (!entries || entries.length === 0) return undefined;
  const ids = REGIONS.map((region) => region.id as string);
  const ok = entries.every(
    ([region, endpoint]) =>
      ids.includes(region) && /^(unix:\/\/\/\S+|tcp:\/\/[A-Za-z0-9.:[\]-]+:\d{1,5})$/.test(endpoint),
  );
  return ok && new Set(entries.map(([region]) => region)).size === entries.length
    ? Object.fromEntries(entries)
    : undefined;
}

function swarmImagesOf(value: string): Record<string, string> | undefined {
  const entries = pairs(value);
  if (!entries) return undefined;
  const ok = entries.every(
    ([type, image]) =>
      (SWARM_IMAGE_TYPES as readonly string[]).includes(type) && /^[a-z0-9][\w./:@-]*$/i.test(image),
  );
  return ok ? Object.fromEntries(entries) : undefined;
}

/**
 * The only reader of process.env. Every setting the server takes is listed, validated and documented
 * here (and in the README's configuration table).
 */
const Port = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a port number` })
    .int(`${name} must be a port number`)
    .min(1, `${name} must be 1 to 65535`)
    .max(65535, `${name} must be 1 to 65535`);

/** A size in MiB: whole, at least `min` (`why` says why), at most 1 TiB. */
const Mib = (name: string, min: number, why: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a number of MiB` })
    .int(`${name} must be a whole number of MiB`)
    .min(min, `${name} must be at least ${min}${why ? ` (${why})` : ''}`)
    .max(1_048_576, `${name} must be at most 1048576 (1 TiB)`)
    .default(fallback);

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
  PROVISIONER: z
    .enum(PROVISIONERS, {
      error: (issue) =>
        `PROVISIONER "${String(issue.input)}" is not available; this build has only: ${PROVISIONERS.join(', ')}`,
    })
    .default('local'),
  PROVISIONING_DATA_DIR: z.string().min(1).optional(),
  MYSQL_ADMIN_URL: z
    .string()
    .regex(/^mysql:\/\//, 'MYSQL_ADMIN_URL must be a mysql://user:password@host:port URL')
    .optional(),
  POSTGRES_ADMIN_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'POSTGRES_ADMIN_URL must be a postgres:// URL')
    .optional(),
  MONGODB_ADMIN_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'MONGODB_ADMIN_URL must be a mongodb:// or mongodb+srv:// URL')
    .optional(),
  INSTANCE_PUBLIC_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:[\]-]+$/, 'INSTANCE_PUBLIC_HOST must be a host name or IP address')
    .optional(),
  SITES_BASE_DOMAIN: z
    .string()
    .regex(
      /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i,
      'SITES_BASE_DOMAIN must be a domain name such as sites.example.com',
    )
    .default('localhost'),
  SITES_HTTP_PORT: Port('SITES_HTTP_PORT').optional(),
  SITES_HTTPS_PORT: Port('SITES_HTTPS_PORT').optional(),
  SFTP_PORT: Port('SFTP_PORT').optional(),
  SITES_TLS: z
    .enum(['internal', 'acme'], { error: 'SITES_TLS must be internal or acme' })
    .default('internal'),
  SITES_DISK_MB: Mib('SITES_DISK_MB', 256, 'WordPress itself takes about 60 MiB', 1024),
  SITES_DATABASE_MB: Mib('SITES_DATABASE_MB', 64, 'a fresh WordPress database takes about 2 MiB', 512),
  MYSQL_DISK_MB: Mib('MYSQL_DISK_MB', 64, '', 1024),
  POSTGRES_DISK_MB: Mib('POSTGRES_DISK_MB', 64, 'an empty database takes about 8 MiB', 1024),
  DISK_RESERVE_MB: Mib('DISK_RESERVE_MB', 0, '', 2048),
  N8N_DISK_MB: Mib('N8N_DISK_MB', 256, 'n8n keeps about 60 MiB of its own there', 1024),
  TENANT_EGRESS_ALLOW: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const cidrs = value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      const bad = cidrs.find((cidr) => !isIpv4Cidr(cidr));
      if (bad) {
        ctx.addIssue({
          code: 'custom',
          message: `TENANT_EGRESS_ALLOW must be comma-separated IPv4 CIDRs such as 10.20.0.0/16; "${bad}" is not one`,
        });
        return z.NEVER;
      }
      return cidrs;
    }),
  SITES_LISTEN_HOST: z
    .string()
    .regex(/^[0-9a-fA-F.:]+$/, 'SITES_LISTEN_HOST must be an IP address such as 127.0.0.1 or 0.0.0.0')
    .default('127.0.0.1'),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_/, 'STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_/, 'STRIPE_WEBHOOK_SECRET must start with whsec_')
    .optional(),
  STRIPE_API_BASE: z.url('STRIPE_API_BASE must be a URL').optional(),
  PAYPAL_CLIENT_ID: z.string().min(1).optional(),
  PAYPAL_CLIENT_SECRET: z.string().min(1).optional(),
  PAYPAL_WEBHOOK_ID: z.string().min(1).optional(),
  PAYPAL_API_BASE: z.url('PAYPAL_API_BASE must be a URL').default('https://api-m.paypal.com'),
  ETH_RPC_URL: z.url('ETH_RPC_URL must be a URL').optional(),
  ETH_CONFIRMATIONS: z.coerce.number().int().min(1).max(1000).default(12),
  DNS_RESOLVER: z
    .string()
    .refine((value) => parseDnsServers(value) !== undefined, DNS_RESOLVER_RULE)
    .optional(),
  ENCRYPTION_KEY: z
    .string()
    .refine((value) => parseEncryptionKey(value) !== undefined, ENCRYPTION_KEY_RULE)
    .optional(),
  SWARM_REGIONS: z
    .string()
    .refine((value) => swarmRegionsOf(value) !== undefined, SWARM_REGIONS_RULE)
    .optional(),
  SWARM_TLS_DIR: z.string().min(1).optional(),
  SWARM_IMAGES: z
    .string()
    .refine((value) => swarmImagesOf(value) !== undefined, SWARM_IMAGES_RULE)
    .optional(),
  SWARM_BACKUPS_DIR: z.string().min(1).optional(),
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
}

interface ProvisioningConfig {
  driver: (typeof PROVISIONERS)[number];
  /** PROVISIONER=swarm: its swarms (otherwise undefined). */
  swarm: SwarmConfig | undefined;
  /** Absolute directory of the local driver (its MariaDB and PostgreSQL servers, logs, pid files). */
  dataDir: string;
  /** Existing servers to create tenants on instead of the ones the local driver runs itself. */
  mysqlAdminUrl: string | undefined;
  postgresAdminUrl: string | undefined;
  mongodbAdminUrl: string | undefined;
  /** Host name written into instance credentials. */
  publicHost: string;
  /** Size of each MySQL / PostgreSQL instance's database on the servers the local driver runs, MiB. */
  mysqlDiskMb: number;
  postgresDiskMb: number;
  /** Free space the local driver never promises to tenants' disks (the platform's own), MiB. */
  diskReserveMb: number;
  /** WordPress sites of the local driver: front door (Caddy), SFTP and certificates. */
  sites: SitesConfig;
  /** n8n instances of the local driver: each one's disk (its storage quota), MiB. */
  n8n: { diskMb: number };
  /** IPv4 CIDRs of private ranges instances may reach (n8n's workflows); empty: none. */
  tenantEgressAllow: string[];
}

export interface SwarmConfig {
  /** Region id → a manager's Docker endpoint, with TLS client files for tcp:// endpoints. */
  regions: Record<string, { endpoint: string; tls?: { ca: string; cert: string; key: string } }>;
  /** Images per type instead of Berth's own (MongoDB only runs from one named here). */
  images: Record<string, string>;
  /** Where backups of swarm instances are kept (off their nodes). */
  backupsDir: string;
}

/** The files of a tcp:// region: <SWARM_TLS_DIR>/<region>/{ca,cert,key}.pem, which must exist. */
function swarmConfigOf(
  regions: Record<string, string>,
  tlsDir: string | undefined,
  images: Record<string, string>,
  backupsDir: string,
): SwarmConfig {
  const problems: string[] = [];
  const withTls = Object.fromEntries(
    Object.entries(regions).map(([region, endpoint]) => {
      if (!endpoint.startsWith('tcp://')) return [region, { endpoint }];
      if (!tlsDir) {
        problems.push(
          `SWARM_TLS_DIR is needed for the tcp:// endpoint of ${region} (Docker's TLS client certificates)`,
        );
        return [region, { endpoint }];
      }
      const file = (name: string) => path.resolve(tlsDir, region, name);
      const tls = { ca: file('ca.pem'), cert: file('cert.pem'), key: file('key.pem') };
      for (const missing of Object.values(tls).filter((f) => !existsSync(f))) {
        problems.push(`SWARM_TLS_DIR: ${missing} is missing (the TLS client files of ${region})`);
      }
      return [region, { endpoint, tls }];
    }),
  );
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return { regions: withTls, images, backupsDir };
}

interface SitesConfig {
  /** Temporary URLs are `<slug>.<baseDomain>`. */
  baseDomain: string;
  /** Unset: the driver picks (8180/8543/2222 when free at first start, else free ports) and remembers. */
  httpPort: number | undefined;
  httpsPort: number | undefined;
  sftpPort: number | undefined;
  /** Who issues custom domains' certificates: Caddy's internal CA, or ACME (Let's Encrypt). */
  tls: 'internal' | 'acme';
  /** Address Caddy and the SFTP server listen on. */
  listenHost: string;
  /** Each site's disk (its storage quota), MiB. */
  diskMb: number;
  /** Each site's database (its own disk on MariaDB), MiB. */
  databaseMb: number;
}

/** `a.b.c.d/n` with each part in range and no host bits set outside the prefix. */
function isIpv4Cidr(value: string): boolean {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  if (!match) return false;
  const parts = match.slice(1, 5).map(Number);
  const bits = Number(match[5]);
  if (parts.some((part) => part > 255) || bits > 32) return false;
  const address = parts.reduce((n, part) => n * 256 + part, 0);
  return address % 2 ** (32 - bits) === 0;
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
    provisioning: {
      driver: e.PROVISIONER,
      swarm:
        e.PROVISIONER === 'swarm' && e.SWARM_REGIONS
          ? swarmConfigOf(
              swarmRegionsOf(e.SWARM_REGIONS) ?? {},
              e.SWARM_TLS_DIR,
              e.SWARM_IMAGES ? (swarmImagesOf(e.SWARM_IMAGES) ?? {}) : {},
              path.resolve(
                e.SWARM_BACKUPS_DIR ??
                  path.join(e.PROVISIONING_DATA_DIR ?? path.join(dataDir, 'provisioning'), 'swarm-backups'),
              ),
            )
          : undefined,
      dataDir: path.resolve(e.PROVISIONING_DATA_DIR ?? path.join(dataDir, 'provisioning')),
      mysqlAdminUrl: e.MYSQL_ADMIN_URL,
      postgresAdminUrl: e.POSTGRES_ADMIN_URL,
      mongodbAdminUrl: e.MONGODB_ADMIN_URL,
      publicHost: e.INSTANCE_PUBLIC_HOST ?? (e.PUBLIC_URL ? new URL(e.PUBLIC_URL).hostname : '127.0.0.1'),
      mysqlDiskMb: e.MYSQL_DISK_MB,
      postgresDiskMb: e.POSTGRES_DISK_MB,
      diskReserveMb: e.DISK_RESERVE_MB,
      sites: {
        baseDomain: e.SITES_BASE_DOMAIN.toLowerCase(),
        httpPort: e.SITES_HTTP_PORT,
        httpsPort: e.SITES_HTTPS_PORT,
        sftpPort: e.SFTP_PORT,
        tls: e.SITES_TLS,
        listenHost: e.SITES_LISTEN_HOST,
        diskMb: e.SITES_DISK_MB,
        databaseMb: e.SITES_DATABASE_MB,
      },
      n8n: { diskMb: e.N8N_DISK_MB },
      tenantEgressAllow: e.TENANT_EGRESS_ALLOW,
    },
    dnsServers: e.DNS_RESOLVER === undefined ? undefined : parseDnsServers(e.DNS_RESOLVER),
    encryptionKey: e.ENCRYPTION_KEY === undefined ? undefined : parseEncryptionKey(e.ENCRYPTION_KEY),
    payments: {
      stripe:
        e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET
          ? {
              secretKey: e.STRIPE_SECRET_KEY,
              webhookSecret: e.STRIPE_WEBHOOK_SECRET,
              apiBase: e.STRIPE_API_BASE,
            }
          : undefined,
      paypal:
        e.PAYPAL_CLIENT_ID && e.PAYPAL_CLIENT_SECRET && e.PAYPAL_WEBHOOK_ID
          ? {
              clientId: e.PAYPAL_CLIENT_ID,
              clientSecret: e.PAYPAL_CLIENT_SECRET,
              webhookId: e.PAYPAL_WEBHOOK_ID,
              apiBase: e.PAYPAL_API_BASE.replace(/\/$/, ''),
            }
          : undefined,
      ethereum: e.ETH_RPC_URL ? { rpcUrl: e.ETH_RPC_URL, confirmations: e.ETH_CONFIRMATIONS } : undefined,
    },
  };
}
