import { createKeyedLock } from '../../../lib/keyed-lock.ts';
import type { ServerHealth } from '../../driver.ts';
import { featuresOf, type InstanceEngine, NO_SITE_DATABASE_ADMIN, type SiteSpec } from '../../engine.ts';
import type { TlsIssuer } from '../../front-door/caddy-config.ts';
import type { EngineServer } from '../databases/engine-server.ts';
import type { FrontDoor } from '../front-door/front-door.ts';
import type { ControlGroups } from '../host/control-groups.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import { siteDisks } from './site-disks.ts';
import { siteBackups } from './wordpress-backups.ts';
import { type SiteContext, siteHelpers } from './wordpress-context.ts';
import { siteDomains } from './wordpress-domains.ts';
import { siteLifecycle } from './wordpress-lifecycle.ts';
import { sitePhps } from './wordpress-php.ts';
import { sitesRuntime } from './wordpress-runtime.ts';
import { siteSuspension } from './wordpress-suspension.ts';

export interface SiteRuntimeOptions {
  /** Temporary URLs are `<slug>.<baseDomain>`; default 'localhost' (opens in a local browser). */
  baseDomain?: string;
  /** Address Caddy listens on; default 127.0.0.1 (0.0.0.0 on a public host). */
  listenHost?: string;
  /** Default: remembered from the first start, else 8180/8543 when free, else free high ports. */
  httpPort?: number;
  httpsPort?: number;
  /** SFTP port; default remembered, else 2222 when free, else a free high port. */
  sftpPort?: number;
  /** Who issues custom domains' certificates; default Caddy's internal CA. ACME is configured but untested. */
  tls?: TlsIssuer;
  /** Size of each site's disk (its storage quota) in MiB; default 1024. */
  diskMb?: number;
  /** Size of each site's database (its own disk on MariaDB, database-disks.ts) in MiB; default 512. */
  databaseMb?: number;
  /**
   * How often every running site gets its upkeep (WP-Cron's due tasks, stale page cache removed);
   * default 5 minutes.
   */
  upkeepEveryMs?: number;
}

/** A site's disk and its database's limit when the operator sets neither (SITES_DISK_MB, SITES_DATABASE_MB). */
export const DEFAULT_SITE_DISK_MB = 1024;
export const DEFAULT_SITE_DATABASE_MB = 512;

export interface SiteRuntimeDeps {
  /** The MariaDB server tenants live on, once started; undefined when MySQL is unavailable. */
  mariadb: () => EngineServer | undefined;
  /** Refuses site disks the host cannot hold (disk-reserve.ts). */
  reserve?: DiskReserve;
  /** Host name put in SFTP and database credentials. */
  publicHost: string | undefined;
  /** The local driver's front door (Caddy), shared with n8n instances. */
  front: FrontDoor;
  /** Each site's control group (host/control-groups.ts). */
  groups: ControlGroups;
}

/** The WordPress engine of the local driver, and what the driver starts, stops and asks about it. */
export interface LocalSites {
  engine: InstanceEngine<SiteSpec>;
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<Record<string, ServerHealth>>;
}

/**
 * WordPress sites on this host. Each site has its own disk (site-disks.ts: its storage quota; no symbolic
 * link on it is ever followed by the host), its own Unix user and its own sandbox (site-sandbox.ts): its
 * php-fpm (php-fpm.ts), its SFTP sessions (site-sftp.ts) and every change the driver makes to its files
 * (site-files.ts, wordpress-backups.ts) run there as the site user. The front door (front-door.ts: Caddy, never
 * root) is loaded with the whole configuration on every change; MariaDB tenants hold the databases. The
 * state files (site-state.ts) say what exists. Every operation is idempotent and keyed on the instance
 * id; operations on one site run one at a time.
 *
 * This function only assembles the parts, one file per concern:
 * - wordpress-runtime.ts: start/stop of what the sites share (front door, disks, SFTP, upkeep),
 *   capability and health;
 * - wordpress-lifecycle.ts: deploy, delete, disk usage;
 * - wordpress-suspension.ts: suspend, resume;
 * - wordpress-domains.ts: custom domain, certificate status, new certificate;
 * - wordpress-backups.ts: a site's backup dumped into an archive, and restored from one;
 * - wordpress-context.ts: what they share (a site's sandbox, database login, addresses, wp-config.php);
 * - wordpress-php.ts: the php-fpm of each site.
 */
export function localSites(
  root: string,
  options: SiteRuntimeOptions,
  deps: SiteRuntimeDeps,
  log: (line: string) => void,
): LocalSites {
  const baseDomain = options.baseDomain ?? 'localhost';
  const listenHost = options.listenHost ?? '127.0.0.1';
  const diskMb = options.diskMb ?? DEFAULT_SITE_DISK_MB;
  const { front } = deps;
  const disks = siteDisks(root, { sizeMb: diskMb, reserve: deps.reserve, log });
  const helpers = siteHelpers(root, front, deps);
  const phps = sitePhps(root, helpers.sandboxOf, log);
  const runtime = sitesRuntime(
    {
      root,
      log,
      front,
      disks,
      phps,
      groups: deps.groups,
      sandboxOf: helpers.sandboxOf,
      mariadb: deps.mariadb, // undefined while MySQL is unavailable: capability() says so
    },
    {
      listenHost,
      sftpPort: options.sftpPort,
      diskMb,
      upkeepEveryMs: options.upkeepEveryMs ?? 5 * 60_000,
    },
  );
  const ctx: SiteContext = {
    root,
    log,
    front,
    disks,
    phps,
    groups: deps.groups,
    withSite: createKeyedLock(),
    runningSftp: runtime.runningSftp,
    databaseMb: options.databaseMb ?? DEFAULT_SITE_DATABASE_MB,
    ...helpers,
  };

  front.addRoutes(helpers.caddySites);
  const lifecycle = siteLifecycle(ctx, deps.publicHost);
  const suspension = siteSuspension(ctx);
  const domains = siteDomains(ctx, baseDomain);
  const backups = siteBackups(ctx, { diskMb });

  return {
    start: runtime.start,
    stop: runtime.stop,
    health: runtime.health,
    engine: {
      type: 'wordpress',
      features: featuresOf('wordpress', { databaseAdmin: NO_SITE_DATABASE_ADMIN }),
      capability: runtime.capability,
      deploy: lifecycle.deploy,
      delete: lifecycle.delete,
      suspend: suspension.suspend,
      resume: suspension.resume,
      domains: { set: domains.setDomain, sslStatus: domains.sslStatus, requestSsl: domains.requestSsl },
      backups,
      storage: { usage: lifecycle.storage },
      php: { versions: async () => runtime.phpVersions() },
    },
  };
}
