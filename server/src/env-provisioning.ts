import path from 'node:path';
import { DEFAULT_REGION, REGIONS } from '@berth/openapi/rules';
import { z } from 'zod';
import {
  type SwarmConfig,
  swarmConfigOf,
  type swarmEnv,
  swarmImagesOf,
  swarmRegionsOf,
} from './env-swarm.ts';
import { DEFAULT_DISK_OVERCOMMIT } from './provisioning/disk-policy.ts';

// The provisioning settings: which driver places instances, the local driver's servers, disks and sites,
// and (through env-swarm.ts) the swarms. env.ts composes them; it alone reads the environment.

/** The provisioning drivers this build has (`kubernetes` comes later). */
/** `none` runs the platform without deploying anything: every instance type is unavailable, with that reason. */
/** `swarm` places instances on one Docker Swarm per region (SWARM_REGIONS). */
const PROVISIONERS = ['local', 'swarm', 'none'] as const;

/** A port setting: 1 to 65535. */
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

const REGION_IDS = REGIONS.map((region) => region.id);

export const provisioningEnv = z.object({
  /** The one region the local driver serves (an id of the deploy form's regions). */
  LOCAL_REGION: z
    .string()
    .trim()
    .default(DEFAULT_REGION)
    .refine((value) => (REGION_IDS as string[]).includes(value), {
      error: (issue) =>
        `LOCAL_REGION "${String(issue.input)}" is not a region of Berth; use one of: ${REGION_IDS.join(', ')}`,
    }),
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
  INSTANCE_LISTEN_ADDRESS: z
    .union([z.ipv4(), z.ipv6()], {
      error: 'INSTANCE_LISTEN_ADDRESS must be an IP address (0.0.0.0 for all interfaces)',
    })
    .optional(),
  INSTANCE_TLS_CERT_FILE: z.string().min(1).optional(),
  INSTANCE_TLS_KEY_FILE: z.string().min(1).optional(),
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
  DISK_OVERCOMMIT: z.coerce
    .number({ error: 'DISK_OVERCOMMIT must be a number' })
    .min(1, 'DISK_OVERCOMMIT must be at least 1 (1 promises only what the disk has)')
    .max(20, 'DISK_OVERCOMMIT must be at most 20')
    .default(DEFAULT_DISK_OVERCOMMIT),
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
});

type ProvisioningEnv = z.infer<typeof provisioningEnv> &
  z.infer<typeof swarmEnv> & { PUBLIC_URL?: string | undefined };

export interface ProvisioningConfig {
  driver: (typeof PROVISIONERS)[number];
  /** PROVISIONER=swarm: its swarms (otherwise undefined). */
  swarm: SwarmConfig | undefined;
  /** Absolute directory of the local driver (its MariaDB and PostgreSQL servers, logs, pid files). */
  dataDir: string;
  /** The one region the local driver serves (LOCAL_REGION, an id of REGIONS). */
  localRegion: string;
  /** Existing servers to create tenants on instead of the ones the local driver runs itself. */
  mysqlAdminUrl: string | undefined;
  postgresAdminUrl: string | undefined;
  mongodbAdminUrl: string | undefined;
  /** Host name written into instance credentials. */
  publicHost: string;
  /** Where database instances' own servers listen; undefined: all interfaces unless publicHost is loopback. */
  listenAddress: string | undefined;
  /** The operator's certificate for those servers (e.g. from ACME); undefined: Berth's own CA issues one. */
  instanceTls: { certFile: string; keyFile: string } | undefined;
  /** Size of each MySQL / PostgreSQL instance's database on the servers the local driver runs, MiB. */
  mysqlDiskMb: number;
  postgresDiskMb: number;
  /** Free space the local driver never promises to tenants' disks (the platform's own), MiB. */
  diskReserveMb: number;
  /** How much more than they have the hosts may promise tenants' disks (disk-policy.ts). */
  diskOvercommit: number;
  /** WordPress sites of the local driver: front door (Caddy), SFTP and certificates. */
  sites: SitesConfig;
  /** n8n instances of the local driver: each one's disk (its storage quota), MiB. */
  n8n: { diskMb: number };
  /** IPv4 CIDRs of private ranges instances may reach (n8n's workflows); empty: none. */
  tenantEgressAllow: string[];
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

/** The provisioning part of the configuration; `dataDir` is Berth's own data directory. */
export function provisioningConfigOf(e: ProvisioningEnv, dataDir: string): ProvisioningConfig {
  return {
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
            e.SWARM_ENCRYPTED_OVERLAYS === 'true',
          )
        : undefined,
    dataDir: path.resolve(e.PROVISIONING_DATA_DIR ?? path.join(dataDir, 'provisioning')),
    localRegion: e.LOCAL_REGION,
    mysqlAdminUrl: e.MYSQL_ADMIN_URL,
    postgresAdminUrl: e.POSTGRES_ADMIN_URL,
    mongodbAdminUrl: e.MONGODB_ADMIN_URL,
    publicHost: e.INSTANCE_PUBLIC_HOST ?? (e.PUBLIC_URL ? new URL(e.PUBLIC_URL).hostname : '127.0.0.1'),
    listenAddress: e.INSTANCE_LISTEN_ADDRESS,
    instanceTls:
      e.INSTANCE_TLS_CERT_FILE && e.INSTANCE_TLS_KEY_FILE
        ? { certFile: path.resolve(e.INSTANCE_TLS_CERT_FILE), keyFile: path.resolve(e.INSTANCE_TLS_KEY_FILE) }
        : undefined,
    mysqlDiskMb: e.MYSQL_DISK_MB,
    postgresDiskMb: e.POSTGRES_DISK_MB,
    diskReserveMb: e.DISK_RESERVE_MB,
    diskOvercommit: e.DISK_OVERCOMMIT,
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
  };
}
