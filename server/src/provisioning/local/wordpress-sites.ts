import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { type IntervalTask, startIntervalTask } from '../../lib/interval-task.ts';
import { createKeyedLock } from '../../lib/keyed-lock.ts';
import type {
  BackupInfo,
  BackupInput,
  Capability,
  DatabaseCredentials,
  ServerHealth,
  SiteAccess,
  SiteSpec,
  SiteStorage,
  SiteUrls,
  SslStatus,
} from '../driver.ts';
import { generatePassword } from '../tenant-names.ts';
import * as backups from './backups.ts';
import type { CaddySite, TlsIssuer } from './caddy-config.ts';
import type { EngineServer } from './engine-server.ts';
import { type FrontDoor, frontDoor } from './front-door.ts';
import { isRoot, type OsUser, ownedDir, systemUser } from './host.ts';
import { aptInstallLine, missingSitePackages } from './host-packages.ts';
import { installedPhpVersions, phpSocket, type SitePhp, sitePhp } from './php-fpm.ts';
import { INSIDE, type SandboxSite, sandboxEtcDir, writeSandboxAccounts } from './sandbox.ts';
import { createSftpServer, type SftpAccount, type SftpServer } from './sftp-server.ts';
import { type SiteDisks, siteDisks } from './site-disks.ts';
import { installPageCache, purgePageCache, runWpCron, sweepPageCache, writeWpConfig } from './site-files.ts';
import { siteNames, sitePaths } from './site-names.ts';
import { chooseSftpPort, sandboxedSftp } from './site-sftp.ts';
import { checkDomain, checkSiteSpec } from './site-spec.ts';
import {
  hashSecret,
  listSiteStates,
  readSiteState,
  removeSiteState,
  type SiteState,
  verifySecret,
  writeSiteState,
} from './site-state.ts';
import { ensureSiteUser, removeSiteUser } from './site-users.ts';
import { runInstall, updateSiteAddress, writeInstallScript } from './wordpress-install.ts';
import { generateSalts, wpConfig } from './wp-config.ts';

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
  /** Most backups a site keeps; default 10. */
  maxBackups?: number;
  /**
   * How often every running site gets its upkeep (WP-Cron's due tasks, stale page cache removed);
   * default 5 minutes.
   */
  upkeepEveryMs?: number;
}

export interface SiteRuntimeDeps {
  /** The MariaDB server tenants live on, once started; undefined when MySQL is unavailable. */
  mariadb: () => EngineServer | undefined;
  /** Host name put in SFTP and database credentials. */
  publicHost: string | undefined;
  /** Other applications behind the same front door (n8n instances), added to every Caddy load. */
  otherSites?: () => Promise<CaddySite[]>;
}

export interface LocalSites {
  start(): Promise<void>;
  stop(): Promise<void>;
  capability(): Promise<Capability>;
  phpVersions(): string[];
  health(): Promise<Record<string, ServerHealth>>;
  deploy(spec: SiteSpec): Promise<SiteAccess>;
  delete(id: string): Promise<void>;
  suspend(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  setDomain(id: string, domain: string | null): Promise<SiteUrls>;
  sslStatus(id: string): Promise<SslStatus | null>;
  requestSsl(id: string): Promise<SslStatus>;
  createBackup(id: string, input: BackupInput): Promise<BackupInfo>;
  listBackups(id: string): Promise<BackupInfo[]>;
  restoreBackup(id: string, backupId: string): Promise<void>;
  deleteBackup(id: string, backupId: string): Promise<void>;
  storage(id: string): Promise<SiteStorage>;
  /** The front door (Caddy) the sites share with other applications (n8n), and whether it runs. */
  frontDoor(): FrontDoor;
  ready(): boolean;
  /** Loads Caddy with every site and application as their state says now (optionally edited). */
  reloadFront(edit?: (sites: CaddySite[]) => CaddySite[]): Promise<void>;
}

/** Durations of the steps of an operation, for the log. */
function stepTimer() {
  const start = performance.now();
  let last = start;
  const parts: string[] = [];
  return {
    mark(step: string) {
      const now = performance.now();
      parts.push(`${step} ${(now - last).toFixed(0)} ms`);
      last = now;
    },
    summary: () => `${(last - start).toFixed(0)} ms (${parts.join(', ')})`,
  };
}

/** Backups one site may have in flight at once (running or waiting its turn). */
const BACKUPS_IN_FLIGHT = 1;
export const BACKUP_BUSY = 'A backup of this site is already in progress. Try again when it has finished.';
export const backupLimitMessage = (max: number) =>
  `This site already has ${max} backups, the most it can keep. Delete one to make room for a new one.`;

/**
 * WordPress sites on this host. Each site has its own disk (site-disks.ts: its storage quota; no symbolic
 * link on it is ever followed by the host), its own Unix user and its own sandbox (sandbox.ts): its
 * php-fpm (php-fpm.ts), its SFTP sessions (site-sftp.ts) and every change the driver makes to its files
 * (site-files.ts, backups.ts) run there as the site user. The front door (front-door.ts: Caddy, never
 * root) is loaded with the whole configuration on every change; MariaDB tenants hold the databases. The
 * state files (site-state.ts) say what exists. Every operation is idempotent and keyed on the instance
 * id; operations on one site run one at a time.
 */
export function localSites(
  root: string,
  options: SiteRuntimeOptions,
  deps: SiteRuntimeDeps,
  log: (line: string) => void,
): LocalSites {
  const listenHost = options.listenHost ?? '127.0.0.1';
  const diskMb = options.diskMb ?? 1024;
  const maxBackups = options.maxBackups ?? 10;
  const front: FrontDoor = frontDoor(
    root,
    {
      baseDomain: options.baseDomain ?? 'localhost',
      listenHost,
      httpPort: options.httpPort,
      httpsPort: options.httpsPort,
      tls: options.tls ?? { issuer: 'internal' },
    },
    log,
  );
  const disks: SiteDisks = siteDisks(root, { sizeMb: diskMb, log });
  const phps = new Map<string, SitePhp>();
  const backupsInFlight = new Map<string, number>();
  const withSite = createKeyedLock();
  let sftp: SftpServer | undefined;
  let sftpPort = 0;
  let upkeep: IntervalTask | undefined;
  let started = false;
  let startError: string | undefined;

  const missingReason = (): string | undefined => {
    if (!isRoot())
      return 'WordPress sites need the server to run as root (each site runs as its own user in its own sandbox)';
    const missing = missingSitePackages();
    return missing.length > 0
      ? `WordPress needs the host packages ${missing.join(' ')}: ${aptInstallLine(missing)}`
      : undefined;
  };

  function runningSftp(): SftpServer {
    if (!started || !sftp || !front.running()) {
      throw new ConflictError(
        `WordPress sites are not available: ${startError ?? missingReason() ?? 'not started'}`,
      );
    }
    return sftp;
  }

  function mariadb(): EngineServer {
    const server = deps.mariadb();
    if (!server) throw new ConflictError('WordPress sites need the MariaDB server, which is not available');
    return server;
  }

  const urlsOf = (state: SiteState): SiteUrls => front.urls(siteNames(state.id).slug, state.domain);

  function databaseOf(state: SiteState): DatabaseCredentials {
    const { host, port } = mariadb().endpoint();
    const { tenant } = siteNames(state.id);
    return { host, port, database: tenant.database, user: tenant.user, password: state.databasePassword };
  }

  async function requireState(id: string): Promise<SiteState> {
    const state = await readSiteState(root, siteNames(id).id);
    if (!state) throw new NotFoundError('Site not found');
    return state;
  }

  function sandboxOf(id: string, user?: OsUser): SandboxSite {
    const { key, unixUser } = siteNames(id);
    const owner = user ?? systemUser(unixUser);
    if (!owner) throw new Error(`The OS user of site ${id} is missing`);
    return {
      key,
      user: owner,
      disk: sitePaths(root, id).dir,
      etcDir: sandboxEtcDir(root, key),
      mysqlSocket: mariadb().socket,
    };
  }

  async function caddySites(): Promise<CaddySite[]> {
    const others = (await deps.otherSites?.()) ?? [];
    const sites = (await listSiteStates(root)).map((state) => ({
      id: state.id,
      temporaryHost: front.temporaryHost(siteNames(state.id).slug),
      domain: state.domain,
      suspended: state.suspended,
      publicDir: sitePaths(root, state.id).public,
      phpSocket: phpSocket(sitePaths(root, state.id).dir),
      phpRoot: INSIDE.public,
    }));
    return [...sites, ...others];
  }

  /** Loads the front door with every site as the state files say now (optionally edited). */
  const reloadFront = (edit: (sites: CaddySite[]) => CaddySite[] = (sites) => sites) =>
    front.load(async () => edit(await caddySites()));

  function checkPhpVersion(version: string): void {
    const available = installedPhpVersions();
    if (!available.includes(version)) {
      throw new ValidationError(
        `PHP ${version} is not installed on this host (available: ${available.join(', ') || 'none'})`,
      );
    }
  }

  /** Starts (or restarts, on a PHP version change) the site's php-fpm. */
  async function startPhp(state: SiteState): Promise<void> {
    const current = phps.get(state.id);
    if (current && current.version === state.phpVersion) return current.start();
    await current?.stop();
    const php = sitePhp(root, sandboxOf(state.id), state.phpVersion, log);
    phps.set(state.id, php);
    await php.start();
  }

  async function stopPhp(id: string): Promise<void> {
    await phps.get(id)?.stop();
    phps.delete(id);
  }

  function siteConfig(state: SiteState): string {
    const urls = urlsOf(state);
    return wpConfig({
      dbHost: `localhost:${INSIDE.mysqlSocket}`,
      database: databaseOf(state),
      salts: state.salts,
      temporary: state.domain ? { host: new URL(urls.temporaryUrl).host, url: urls.temporaryUrl } : undefined,
    });
  }

  /** Every running site, one at a time: its due WordPress tasks (WP-Cron), then stale cached pages. */
  async function siteUpkeep(): Promise<void> {
    for (const state of await listSiteStates(root)) {
      if (state.suspended || !phps.has(state.id) || !state.installed) continue;
      const sandbox = sandboxOf(state.id);
      await runWpCron(sandbox, state.phpVersion).catch((error: Error) =>
        log(`wp-cron of ${state.id}: ${error.message}`),
      );
      await sweepPageCache(sandbox).catch((error: Error) =>
        log(`page cache sweep of ${state.id}: ${error.message}`),
      );
    }
  }

  function backupSite(state: SiteState): backups.BackupSite {
    return {
      root,
      id: state.id,
      sandbox: sandboxOf(state.id),
      database: databaseOf(state),
      tenant: siteNames(state.id).tenant,
      tenants: mariadb().tenants,
      maxArchiveBytes: diskMb * 1024 * 1024,
    };
  }

  const notSuspended = (state: SiteState, what: string) => {
    if (state.suspended) throw new ConflictError(`The site is suspended: ${what} is disabled`);
  };

  async function sftpAccount(user: string, password: string): Promise<SftpAccount | undefined> {
    const state = (await listSiteStates(root)).find((s) => siteNames(s.id).slug === user);
    if (!state || state.suspended || !(await verifySecret(password, state.sftpPasswordHash)))
      return undefined;
    return sandboxedSftp(sandboxOf(state.id), diskMb * 1024 * 1024);
  }

  /** After a restart: every site's disk mounted, the PHP of those not suspended running. */
  async function bringBackSites(): Promise<void> {
    const states = await listSiteStates(root);
    await Promise.all(
      states.map(async (state) => {
        try {
          if (!(await disks.mount(state.id))) throw new Error('its disk is missing');
          if (!state.suspended) await startPhp(state);
        } catch (error) {
          log(`site ${state.id} did not come back: ${(error as Error).message}`);
        }
      }),
    );
  }

  const api: LocalSites = {
    frontDoor: () => front,
    ready: () => started && front.running(),
    reloadFront: (edit) => reloadFront(edit),

    async start() {
      if (started) return;
      const missing = missingReason();
      if (missing) {
        startError = missing;
        log(missing);
        return;
      }
      try {
        for (const dir of ['sites', 'sandbox']) await ownedDir(path.join(root, dir), undefined, 0o711);
        for (const dir of ['site-state', 'backups', 'sftp', 'disks'])
          await ownedDir(path.join(root, dir), undefined, 0o700);
        await front.preparePorts();
        disks.start();
        await bringBackSites();
        await front.start(await caddySites());
        sftpPort = await chooseSftpPort(root, listenHost, options.sftpPort);
        sftp = createSftpServer({
          host: listenHost,
          port: sftpPort,
          hostKeyFile: path.join(root, 'sftp', 'host_key'),
          authenticate: sftpAccount,
          log,
        });
        await sftp.start();
        upkeep = startIntervalTask('site upkeep', options.upkeepEveryMs ?? 5 * 60_000, siteUpkeep, log);
        started = true;
        startError = undefined;
      } catch (error) {
        started = false;
        // The raw error (paths, program output) is for the log; customers see that it failed.
        log(`WordPress sites did not start: ${(error as Error).message}`);
        startError = 'WordPress sites could not start on this server (the server log says why)';
      }
    },

    async stop() {
      started = false;
      await upkeep?.stop();
      upkeep = undefined;
      await disks.stop();
      await sftp?.stop();
      sftp = undefined;
      await front.stop();
      await Promise.all([...phps.keys()].map((id) => stopPhp(id)));
      for (const state of await listSiteStates(root)) {
        await disks
          .unmount(state.id)
          .catch((error: Error) => log(`unmount of ${state.id}: ${error.message}`));
      }
    },

    async capability(): Promise<Capability> {
      const missing = missingReason();
      if (missing) return { available: false, reason: missing };
      if (installedPhpVersions().length === 0)
        return { available: false, reason: 'No PHP version with php-fpm is installed' };
      const server = deps.mariadb();
      if (!server)
        return { available: false, reason: 'WordPress needs MySQL (MariaDB), which is not available' };
      if (!server.socket)
        return {
          available: false,
          reason:
            'WordPress sites need the MariaDB server the driver runs (an external one is not reachable from the site sandboxes)',
        };
      if (!started)
        return { available: false, reason: startError ?? 'The provisioning driver is not started' };
      const health = await api.health();
      const down = Object.entries(health).filter(([name, h]) => name !== 'php-fpm' && !h.ok);
      if (down.length > 0) {
        return {
          available: false,
          reason: `Not running: ${down.map(([name, h]) => `${name} (${h.message ?? h.state})`).join(', ')}`,
        };
      }
      return { available: true };
    },

    phpVersions: () => installedPhpVersions(),

    async health() {
      const entries: [string, ServerHealth][] = [];
      const caddy = await front.health();
      if (caddy) entries.push(['caddy', caddy]);
      if (sftp) {
        const ok = sftp.listening();
        entries.push(['sftp', { kind: 'local', state: ok ? 'running' : 'stopped', ok, port: sftpPort }]);
      }
      // One php-fpm per site (sites that are not suspended): summed up in one entry.
      const sites = await Promise.all(
        [...phps.entries()].map(async ([id, php]) => [id, await php.health()] as const),
      );
      const down = sites.filter(([, h]) => !h.ok);
      entries.push([
        'php-fpm',
        {
          kind: 'local',
          state: down.length === 0 ? 'running' : 'failed',
          ok: down.length === 0,
          message: `${sites.length - down.length} of ${sites.length} sites running${down.length ? `; down: ${down.map(([id]) => id).join(', ')}` : ''}`,
        },
      ]);
      return Object.fromEntries(entries);
    },

    deploy(input) {
      const spec = checkSiteSpec(input);
      const names = siteNames(spec.id);
      return withSite(spec.id, async () => {
        const server = runningSftp();
        checkPhpVersion(spec.phpVersion);
        const clash = (await listSiteStates(root)).find(
          (s) => s.id !== spec.id && siteNames(s.id).key === names.key,
        );
        if (clash)
          throw new ConflictError(`Site ${spec.id} would share the key ${names.key} with site ${clash.id}`);
        const previous = await readSiteState(root, spec.id);
        const databasePassword = spec.databasePassword ?? generatePassword();
        const sftpPassword = spec.sftpPassword ?? generatePassword();
        const steps = stepTimer();
        const [, owner] = await Promise.all([
          mariadb().tenants.create(names.tenant, databasePassword),
          (async () => {
            const user = await ensureSiteUser(names.unixUser, sitePaths(root, spec.id).dir);
            const etcDir = sandboxEtcDir(root, names.key);
            await writeSandboxAccounts(etcDir, user);
            await writeInstallScript(etcDir);
            await disks.ensure(spec.id, user, front.user());
            return user;
          })(),
        ]);
        steps.mark('tenant, user and disk');
        const state: SiteState = {
          id: spec.id,
          type: 'wordpress',
          phpVersion: spec.phpVersion,
          title: spec.title,
          adminUser: spec.adminUser,
          adminEmail: spec.adminEmail,
          databasePassword,
          sftpPasswordHash: await hashSecret(sftpPassword),
          salts: previous?.salts ?? generateSalts(),
          domain: previous?.domain ?? null,
          suspended: previous?.suspended ?? false,
          installed: previous?.installed ?? false,
          createdAt: previous?.createdAt ?? new Date().toISOString(),
        };
        await writeSiteState(root, state);
        const sandbox = sandboxOf(spec.id, owner);
        await writeWpConfig(sandbox, siteConfig(state));
        await installPageCache(sandbox);
        const install = async () => {
          if (state.installed) return;
          const installed = await runInstall(sandbox, {
            phpVersion: spec.phpVersion,
            url: urlsOf(state).url,
            title: spec.title,
            adminUser: spec.adminUser,
            adminEmail: spec.adminEmail,
            adminPassword: spec.adminPassword,
          });
          if (!installed) log(`site ${spec.id}: WordPress was already installed; its admin account is kept`);
          state.installed = true;
          await writeSiteState(root, state);
        };
        await Promise.all([state.suspended ? Promise.resolve() : startPhp(state), install()]);
        steps.mark('php and install');
        // Routed only once installed: WordPress' web installer must never be reachable.
        await reloadFront();
        steps.mark('route');
        if (!state.suspended) await front.waitForSite(names.slug);
        steps.mark('first 200');
        log(`site ${spec.id} deployed: ${steps.summary()}`);
        server.disconnect(names.slug); // sessions opened with a previous password
        return {
          ...urlsOf(state),
          sftp: {
            host: deps.publicHost ?? front.probeHost,
            port: sftpPort,
            user: names.slug,
            password: sftpPassword,
          },
          database: { ...databaseOf(state), host: deps.publicHost ?? databaseOf(state).host },
        };
      });
    },

    delete(id) {
      const names = siteNames(id);
      return withSite(id, async () => {
        runningSftp().disconnect(names.slug);
        const state = await readSiteState(root, id);
        if (state?.domain) await front.removeCertificates(state.domain);
        await removeSiteState(root, id);
        await reloadFront();
        await stopPhp(id);
        await mariadb().tenants.delete(names.tenant);
        await removeSiteUser(names.unixUser);
        // The whole disk goes: no file of the customer's is walked or removed one by one as root.
        await disks.remove(id);
        await rm(sandboxEtcDir(root, names.key), { recursive: true, force: true });
        await backups.deleteAllBackups(root, id);
      });
    },

    suspend(id) {
      return withSite(id, async () => {
        const state = await requireState(id);
        runningSftp().disconnect(siteNames(id).slug);
        await writeSiteState(root, { ...state, suspended: true });
        await reloadFront();
        await stopPhp(id);
        await mariadb().tenants.suspend(siteNames(id).tenant);
      });
    },

    resume(id) {
      return withSite(id, async () => {
        const state = await requireState(id);
        await mariadb().tenants.resume(siteNames(id).tenant);
        const resumed = { ...state, suspended: false };
        await writeSiteState(root, resumed);
        await startPhp(resumed);
        await reloadFront();
        await front.waitForSite(siteNames(id).slug);
      });
    },

    setDomain(id, domain) {
      return withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'changing the domain');
        const name = domain === null ? null : checkDomain(domain, options.baseDomain ?? 'localhost');
        const taken = (await listSiteStates(root)).find(
          (s) => s.id !== id && s.domain === name && name !== null,
        );
        if (taken) throw new ConflictError(`The domain ${name} is already attached to another site`);
        if (state.domain === name) return urlsOf(state);
        const before = urlsOf(state).url;
        if (state.domain) await front.removeCertificates(state.domain);
        const changed = { ...state, domain: name };
        await writeSiteState(root, changed);
        const sandbox = sandboxOf(id);
        await writeWpConfig(sandbox, siteConfig(changed));
        await reloadFront();
        const urls = urlsOf(changed);
        await updateSiteAddress(databaseOf(changed), before, urls.url);
        await purgePageCache(sandbox); // pages naming the old address
        return urls;
      });
    },

    async sslStatus(id) {
      const state = await requireState(id);
      if (!state.domain) return null;
      runningSftp();
      return front.sslStatus(state.domain);
    },

    async requestSsl(id) {
      await withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'requesting SSL');
        const domain = state.domain;
        if (!domain) throw new ValidationError('SSL is only available for custom domains');
        // Caddy keeps a managed certificate in memory across reloads: stop managing the name, drop the
        // stored certificate, then manage it again so a new one is issued.
        await reloadFront((sites) => sites.map((s) => (s.id === id ? { ...s, domain: null } : s)));
        await front.removeCertificates(domain);
        await reloadFront();
      });
      const status = await api.sslStatus(id);
      if (!status) throw new ValidationError('SSL is only available for custom domains');
      return status;
    },

    async createBackup(id, input) {
      const inFlight = backupsInFlight.get(id) ?? 0;
      if (inFlight >= BACKUPS_IN_FLIGHT) throw new ConflictError(BACKUP_BUSY);
      backupsInFlight.set(id, inFlight + 1);
      try {
        return await withSite(id, async () => {
          const state = await requireState(id);
          notSuspended(state, 'creating backups');
          const existing = await backups.listBackups(root, id);
          if (existing.length >= maxBackups && !existing.some((b) => b.id === input.backupId))
            throw new ConflictError(backupLimitMessage(maxBackups));
          return backups.createBackup(backupSite(state), input);
        });
      } finally {
        const left = (backupsInFlight.get(id) ?? 1) - 1;
        if (left > 0) backupsInFlight.set(id, left);
        else backupsInFlight.delete(id);
      }
    },

    async listBackups(id) {
      await requireState(id);
      return backups.listBackups(root, id);
    },

    restoreBackup(id, backupId) {
      return withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'restoring backups');
        await backups.restoreBackup(backupSite(state), backupId);
        await purgePageCache(sandboxOf(id));
      });
    },

    deleteBackup(id, backupId) {
      return withSite(id, async () => {
        await requireState(id);
        await backups.deleteBackup(root, id, backupId);
      });
    },

    async storage(id) {
      await requireState(id);
      if (!disks.isMounted(id)) throw new ConflictError("The site's disk is not mounted");
      const usage = await disks.usage(id);
      return { usedBytes: usage.usedBytes, limitBytes: usage.sizeBytes };
    },
  };
  return api;
}
