import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, readFile, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { freePort } from '../../lib/free-port.ts';
import type {
  BackupInfo,
  BackupInput,
  Capability,
  DatabaseCredentials,
  ServerHealth,
  SiteAccess,
  SiteSpec,
  SiteUrls,
  SslStatus,
} from '../driver.ts';
import { generatePassword } from '../tenant-names.ts';
import * as backups from './backups.ts';
import { type CaddyPorts, caddyPaths, caddyPorts, type LocalCaddy, localCaddy } from './caddy.ts';
import { buildCaddyConfig, type CaddySite, type TlsIssuer } from './caddy-config.ts';
import type { EngineServer } from './engine-server.ts';
import { isRoot, type OsUser, ownedDir, readState, serviceUser, systemUser, writeState } from './host.ts';
import { aptInstallLine, missingSitePackages } from './host-packages.ts';
import {
  installedPhpVersions,
  type PhpFpmMaster,
  type PoolSpec,
  phpFpmMaster,
  poolSocket,
} from './php-fpm.ts';
import { createSftpServer, realRoot, type SftpServer } from './sftp-server.ts';
import { type SiteNames, siteNames, sitePaths } from './site-names.ts';
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
import { sslStatusOf } from './ssl-probe.ts';
import { coreCopies } from './wordpress-core.ts';
import { runInstall, updateSiteAddress, writeInstallScript } from './wordpress-install.ts';
import { generateSalts, wpConfig } from './wp-config.ts';

const run = promisify(execFile);

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
}

export interface SiteRuntimeDeps {
  /** The MariaDB server tenants live on, once started; undefined when MySQL is unavailable. */
  mariadb: () => EngineServer | undefined;
  /** Host name put in SFTP and database credentials. */
  publicHost: string | undefined;
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

const SftpStateSchema = z.object({ port: z.number().int() });

/**
 * WordPress sites on this host: Caddy in front (whole config rebuilt from the site state files on every
 * change), one php-fpm master per installed PHP version with a pool per site, Debian's WordPress copied
 * per site, MariaDB tenants, the in-process SFTP server, backups. Every operation is idempotent and
 * keyed on the instance id; operations on one site run one at a time.
 */
export function localSites(
  root: string,
  options: SiteRuntimeOptions,
  deps: SiteRuntimeDeps,
  log: (line: string) => void,
): LocalSites {
  const baseDomain = options.baseDomain ?? 'localhost';
  const listenHost = options.listenHost ?? '127.0.0.1';
  const probeHost = listenHost === '0.0.0.0' ? '127.0.0.1' : listenHost;
  const tls: TlsIssuer = options.tls ?? { issuer: 'internal' };
  const caddyFiles = caddyPaths(root);
  let ports: CaddyPorts | undefined;
  let sftpPort = 0;
  /** The user Caddy runs as (root with unprivileged ports): it alone may read site dirs and sockets. */
  let frontUser: OsUser | undefined;
  let masters = new Map<string, PhpFpmMaster>();
  let caddy: LocalCaddy | undefined;
  let sftp: SftpServer | undefined;
  const core = coreCopies(root, log);
  let started = false;
  let startError: string | undefined;

  // One operation per site at a time; Caddy loads one at a time (each from the state files of the moment).
  const locks = new Map<string, Promise<unknown>>();
  function withSite<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = locks.get(id) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.catch(() => {});
    locks.set(id, settled);
    settled.then(() => {
      if (locks.get(id) === settled) locks.delete(id);
    });
    return next;
  }
  let caddyQueue: Promise<unknown> = Promise.resolve();

  const missingReason = (): string | undefined => {
    const missing = missingSitePackages();
    return missing.length > 0
      ? `WordPress needs the host packages ${missing.join(' ')}: ${aptInstallLine(missing)}`
      : undefined;
  };

  function running(): { ports: CaddyPorts; caddy: LocalCaddy; sftp: SftpServer } {
    if (!started || !ports || !caddy || !sftp) {
      throw new ConflictError(
        `WordPress sites are not available: ${startError ?? missingReason() ?? 'not started'}`,
      );
    }
    return { ports, caddy, sftp };
  }

  /** The front door's ports, known from the start on. */
  function knownPorts(): CaddyPorts {
    if (!ports) throw new ConflictError(`WordPress sites are not available: ${startError ?? 'not started'}`);
    return ports;
  }

  function mariadb(): EngineServer {
    const server = deps.mariadb();
    if (!server) throw new ConflictError('WordPress sites need the MariaDB server, which is not available');
    return server;
  }

  const portSuffix = (port: number, standard: number) => (port === standard ? '' : `:${port}`);
  function urlsOf(state: SiteState): SiteUrls {
    const p = knownPorts();
    const slug = siteNames(state.id).slug;
    const temporaryUrl = `http://${slug}.${baseDomain}${portSuffix(p.httpPort, 80)}`;
    const url = state.domain ? `https://${state.domain}${portSuffix(p.httpsPort, 443)}` : temporaryUrl;
    return { url, adminUrl: `${url}/wp-admin/`, temporaryUrl };
  }

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

  async function caddySites(): Promise<CaddySite[]> {
    return (await listSiteStates(root)).map((state) => {
      const names = siteNames(state.id);
      return {
        id: state.id,
        temporaryHost: `${names.slug}.${baseDomain}`,
        domain: state.domain,
        suspended: state.suspended,
        publicDir: sitePaths(root, state.id).public,
        phpSocket: poolSocket(root, names.key),
      };
    });
  }

  function caddyConfig(sites: CaddySite[]) {
    const p = knownPorts();
    return buildCaddyConfig(
      {
        adminListen: `unix/${caddyFiles.adminSocket}`,
        listenHost,
        httpPort: p.httpPort,
        httpsPort: p.httpsPort,
        tls,
      },
      sites,
    );
  }

  /** Loads Caddy with the configuration of all site states as they are now (optionally edited). */
  function reloadCaddy(edit: (sites: CaddySite[]) => CaddySite[] = (sites) => sites): Promise<void> {
    const task = async () => {
      if (!caddy) throw new ConflictError('WordPress sites are not available: Caddy is not running');
      await caddy.load(caddyConfig(edit(await caddySites())));
    };
    const next = caddyQueue.then(task, task);
    caddyQueue = next.catch(() => {});
    return next;
  }

  /** Resolves when the site's temporary URL answers 200 through Caddy (the proof that it works). */
  async function waitForSite(state: SiteState, timeoutMs = 30_000): Promise<void> {
    const { ports: p } = running();
    const host = `${siteNames(state.id).slug}.${baseDomain}${portSuffix(p.httpPort, 80)}`;
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      const status = await new Promise<number>((resolve) => {
        const request = http.get(
          {
            host: probeHost,
            port: p.httpPort,
            path: '/',
            headers: { Host: host },
            agent: false,
            timeout: 10_000,
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('timeout', () => request.destroy());
        request.on('error', (error) => {
          last = error.message;
          resolve(0);
        });
      });
      if (status === 200) return;
      last = status ? `HTTP ${status}` : last;
      if (Date.now() > deadline)
        throw new Error(`The site ${host} did not answer 200 within ${timeoutMs} ms (${last})`);
      await sleep(50);
    }
  }

  function master(version: string): PhpFpmMaster {
    const found = masters.get(version);
    if (!found) {
      const available = [...masters.keys()].join(', ') || 'none';
      throw new ValidationError(`PHP ${version} is not installed on this host (available: ${available})`);
    }
    return found;
  }

  function poolSpec(names: SiteNames, owner: OsUser | undefined): PoolSpec {
    const paths = sitePaths(root, names.id);
    return {
      key: names.key,
      user: owner,
      listener: frontUser,
      siteDir: paths.dir,
      publicDir: paths.public,
      tmpDir: paths.tmp,
      logsDir: paths.logs,
    };
  }

  async function writeWpConfig(state: SiteState, owner: OsUser | undefined): Promise<void> {
    const urls = urlsOf(state);
    const file = sitePaths(root, state.id).wpConfig;
    const temporaryHost = new URL(urls.temporaryUrl).host;
    const text = wpConfig({
      database: databaseOf(state),
      salts: state.salts,
      temporary: state.domain ? { host: temporaryHost, url: urls.temporaryUrl } : undefined,
    });
    await writeFile(`${file}.new`, text, { mode: 0o600 });
    if (owner) await chown(`${file}.new`, owner.uid, owner.gid);
    await rename(`${file}.new`, file);
  }

  /** Site directory (SFTP root), WordPress core copied once, tmp and logs; owned by the site user. */
  async function prepareFiles(names: SiteNames, owner: OsUser | undefined): Promise<void> {
    const paths = sitePaths(root, names.id);
    await ownedDir(paths.dir, owner, 0o750);
    // The front door reads static files through the group; other site users cannot enter.
    if (owner && frontUser) await chown(paths.dir, owner.uid, frontUser.gid);
    if (!existsSync(path.join(paths.public, 'wp-settings.php'))) {
      const partial = `${paths.public}.partial`;
      await rm(partial, { recursive: true, force: true });
      await rm(paths.public, { recursive: true, force: true });
      await core.take(partial);
      if (owner) await run('/usr/bin/chown', ['-R', '-P', `${owner.uid}:${owner.gid}`, partial]);
      await rename(partial, paths.public);
    }
    await ownedDir(paths.tmp, owner, 0o700);
    await ownedDir(paths.logs, owner, 0o750);
  }

  async function removeCertificates(domain: string): Promise<void> {
    if (!existsSync(caddyFiles.certificates)) return;
    for (const issuer of readdirSync(caddyFiles.certificates)) {
      await rm(path.join(caddyFiles.certificates, issuer, domain), { recursive: true, force: true });
    }
  }

  function backupSite(state: SiteState): backups.BackupSite {
    const names = siteNames(state.id);
    const paths = sitePaths(root, state.id);
    return {
      root,
      id: state.id,
      publicDir: paths.public,
      siteDir: paths.dir,
      database: databaseOf(state),
      tenant: names.tenant,
      tenants: mariadb().tenants,
      owner: isRoot() ? systemUser(names.unixUser) : undefined,
    };
  }

  const notSuspended = (state: SiteState, what: string) => {
    if (state.suspended) throw new ConflictError(`The site is suspended: ${what} is disabled`);
  };

  async function sftpAccount(user: string, password: string) {
    const state = (await listSiteStates(root)).find((s) => siteNames(s.id).slug === user);
    if (!state || state.suspended || !(await verifySecret(password, state.sftpPasswordHash)))
      return undefined;
    const names = siteNames(state.id);
    return {
      root: await realRoot(sitePaths(root, state.id).dir),
      owner: isRoot() ? systemUser(names.unixUser) : undefined,
    };
  }

  async function chooseSftpPort(): Promise<number> {
    const file = path.join(root, 'sftp.json');
    const known = await readState(file, SftpStateSchema);
    const port =
      options.sftpPort ??
      known?.port ??
      (await new Promise<number>((resolve) => {
        // 2222 when free, else any free port.
        const probe = http.createServer();
        probe.once('error', () => freePort().then(resolve));
        probe.listen(2222, listenHost, () => probe.close(() => resolve(2222)));
      }));
    await writeState(file, { port });
    return port;
  }

  const api: LocalSites = {
    async start() {
      if (started) return;
      const missing = missingReason();
      if (missing) {
        startError = missing;
        log(missing);
        return;
      }
      try {
        for (const dir of ['sites', 'lib']) await ownedDir(path.join(root, dir), undefined, 0o711);
        for (const dir of ['site-state', 'backups', 'sftp'])
          await ownedDir(path.join(root, dir), undefined, 0o700);
        await writeInstallScript(root);
        core.start();
        ports = await caddyPorts(root, listenHost, {
          httpPort: options.httpPort,
          httpsPort: options.httpsPort,
        });
        frontUser =
          isRoot() && ports.httpPort >= 1024 && ports.httpsPort >= 1024 ? serviceUser('caddy') : undefined;
        masters = new Map(
          installedPhpVersions().map((version) => [version, phpFpmMaster(root, version, log)]),
        );
        await Promise.all([...masters.values()].map((m) => m.start()));
        caddy = localCaddy(root, frontUser, log);
        await caddy.start(caddyConfig(await caddySites()));
        sftpPort = await chooseSftpPort();
        sftp = createSftpServer({
          host: listenHost,
          port: sftpPort,
          hostKeyFile: path.join(root, 'sftp', 'host_key'),
          authenticate: sftpAccount,
          log,
        });
        await sftp.start();
        started = true;
        startError = undefined;
      } catch (error) {
        started = false;
        startError = (error as Error).message;
        log(`WordPress sites did not start: ${startError}`);
      }
    },

    async stop() {
      started = false;
      await core.stop();
      await sftp?.stop();
      sftp = undefined;
      await caddy?.stop();
      caddy = undefined;
      await Promise.all([...masters.values()].map((m) => m.stop()));
      masters = new Map();
    },

    async capability(): Promise<Capability> {
      const missing = missingReason();
      if (missing) return { available: false, reason: missing };
      if (installedPhpVersions().length === 0)
        return { available: false, reason: 'No PHP version with php-fpm is installed' };
      if (!deps.mariadb())
        return { available: false, reason: 'WordPress needs MySQL (MariaDB), which is not available' };
      if (!started)
        return { available: false, reason: startError ?? 'The provisioning driver is not started' };
      const health = await api.health();
      const down = Object.entries(health).filter(([, h]) => !h.ok);
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
      if (caddy) entries.push(['caddy', { ...(await caddy.health()), port: ports?.httpPort }]);
      for (const m of masters.values()) entries.push([`php-fpm-${m.version}`, await m.health()]);
      if (sftp) {
        const ok = sftp.listening();
        entries.push(['sftp', { kind: 'local', state: ok ? 'running' : 'stopped', ok, port: sftpPort }]);
      }
      return Object.fromEntries(entries);
    },

    deploy(input) {
      const spec = checkSiteSpec(input);
      const names = siteNames(spec.id);
      return withSite(spec.id, async () => {
        const { sftp: server } = running();
        const php = master(spec.phpVersion);
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
            const user = isRoot()
              ? await ensureSiteUser(names.unixUser, sitePaths(root, spec.id).dir)
              : undefined;
            await prepareFiles(names, user);
            return user;
          })(),
        ]);
        steps.mark('tenant, user and files');
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
        await writeWpConfig(state, owner);
        for (const other of masters.values())
          if (other !== php && other.hasPool(names.key)) await other.removePool(names.key);
        const install = async () => {
          if (state.installed) return;
          const installed = await runInstall(root, {
            phpVersion: spec.phpVersion,
            publicDir: sitePaths(root, spec.id).public,
            url: urlsOf(state).url,
            title: spec.title,
            adminUser: spec.adminUser,
            adminEmail: spec.adminEmail,
            adminPassword: spec.adminPassword,
            user: owner,
          });
          if (!installed) log(`site ${spec.id}: WordPress was already installed; its admin account is kept`);
          state.installed = true;
          await writeSiteState(root, state);
        };
        await Promise.all([php.writePool(poolSpec(names, owner)), install()]);
        steps.mark('pool and install');
        // Routed only once installed: WordPress' web installer must never be reachable.
        await reloadCaddy();
        steps.mark('route');
        if (!state.suspended) await waitForSite(state);
        steps.mark('first 200');
        log(`site ${spec.id} deployed: ${steps.summary()}`);
        server.disconnect(names.slug); // sessions opened with a previous password
        return {
          ...urlsOf(state),
          sftp: {
            host: deps.publicHost ?? probeHost,
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
        running().sftp.disconnect(names.slug);
        const state = await readSiteState(root, id);
        if (state?.domain) await removeCertificates(state.domain);
        await removeSiteState(root, id);
        await reloadCaddy();
        for (const m of masters.values()) await m.removePool(names.key);
        await mariadb().tenants.delete(names.tenant);
        if (isRoot()) await removeSiteUser(names.unixUser);
        await rm(sitePaths(root, id).dir, { recursive: true, force: true });
        await backups.deleteAllBackups(root, id);
      });
    },

    suspend(id) {
      return withSite(id, async () => {
        const state = await requireState(id);
        running().sftp.disconnect(siteNames(id).slug);
        await writeSiteState(root, { ...state, suspended: true });
        await reloadCaddy();
        await mariadb().tenants.suspend(siteNames(id).tenant);
      });
    },

    resume(id) {
      return withSite(id, async () => {
        const state = await requireState(id);
        await mariadb().tenants.resume(siteNames(id).tenant);
        const resumed = { ...state, suspended: false };
        await writeSiteState(root, resumed);
        await reloadCaddy();
        await waitForSite(resumed);
      });
    },

    setDomain(id, domain) {
      return withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'changing the domain');
        const name = domain === null ? null : checkDomain(domain, baseDomain);
        const taken = (await listSiteStates(root)).find(
          (s) => s.id !== id && s.domain === name && name !== null,
        );
        if (taken) throw new ConflictError(`The domain ${name} is already attached to another site`);
        if (state.domain === name) return urlsOf(state);
        const before = urlsOf(state).url;
        if (state.domain) await removeCertificates(state.domain);
        const changed = { ...state, domain: name };
        await writeSiteState(root, changed);
        const names = siteNames(id);
        await writeWpConfig(changed, isRoot() ? systemUser(names.unixUser) : undefined);
        await reloadCaddy();
        const urls = urlsOf(changed);
        await updateSiteAddress(databaseOf(changed), before, urls.url);
        return urls;
      });
    },

    async sslStatus(id) {
      const state = await requireState(id);
      if (!state.domain) return null;
      const ca =
        tls.issuer === 'internal' && existsSync(caddyFiles.rootCertificate)
          ? await readFile(caddyFiles.rootCertificate, 'utf8')
          : undefined;
      return sslStatusOf(
        { host: probeHost, port: running().ports.httpsPort, domain: state.domain, ca },
        caddyFiles.certificates,
        caddyFiles.logFile,
      );
    },

    async requestSsl(id) {
      await withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'requesting SSL');
        const domain = state.domain;
        if (!domain) throw new ValidationError('SSL is only available for custom domains');
        // Caddy keeps a managed certificate in memory across reloads: stop managing the name, drop the
        // stored certificate, then manage it again so a new one is issued.
        await reloadCaddy((sites) => sites.map((s) => (s.id === id ? { ...s, domain: null } : s)));
        await removeCertificates(domain);
        await reloadCaddy();
      });
      const status = await api.sslStatus(id);
      if (!status) throw new ValidationError('SSL is only available for custom domains');
      return status;
    },

    async createBackup(id, input) {
      return withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'creating backups');
        return backups.createBackup(backupSite(state), input);
      });
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
      });
    },

    deleteBackup(id, backupId) {
      return withSite(id, async () => {
        await requireState(id);
        await backups.deleteBackup(root, id, backupId);
      });
    },
  };
  return api;
}
