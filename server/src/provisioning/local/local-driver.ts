import path from 'node:path';
import {
  type Capabilities,
  type Capability,
  COMING_SOON,
  type DatabaseRef,
  type DatabaseType,
  type DriverHealth,
  type ProvisioningDriver,
  ProvisioningUnavailableError,
  type ServerHealth,
  unavailable,
} from '../driver.ts';
import { checkPassword, generatePassword, tenantNames } from '../tenant-names.ts';
import type { EngineServer } from './engine-server.ts';
import { makeTraversable, ownedDir } from './host.ts';
import { aptInstallLine, type LocalEngine, missingHostPackages } from './host-packages.ts';
import { externalMariaDb, localMariaDb } from './mariadb-server.ts';
import { type LocalN8n, localN8n } from './n8n-instances.ts';
import { DEFAULT_RUNTIMES_DIR } from './n8n-runtime.ts';
import { externalPostgres, localPostgres } from './postgres-server.ts';
import { type LocalSites, localSites, type SiteRuntimeOptions } from './wordpress-sites.ts';

export interface LocalDriverOptions {
  /** Absolute directory the driver keeps its servers' data, sockets, pid files and logs in. */
  dataRoot: string;
  /** An existing MariaDB/MySQL server (mysql://admin:pw@host:3306) instead of a private one. */
  mysqlAdminUrl?: string;
  /** An existing PostgreSQL server (postgres://admin:pw@host:5432/postgres) instead of a private one. */
  postgresAdminUrl?: string;
  /** A MongoDB server to create MongoDB tenants on; without one MongoDB is unavailable. */
  mongodbAdminUrl?: string;
  /** Host name put in credentials; default the host the server listens on (127.0.0.1 locally). */
  publicHost?: string;
  /**
   * Runs WordPress sites (Caddy, php-fpm, SFTP; see wordpress-sites.ts); main.ts always passes it. While
   * off, wordpress is reported 'Coming soon', nothing of the site runtime starts, and the site operations
   * refuse.
   */
  sites?: SiteRuntimeOptions;
  /**
   * Where the n8n runtime is installed (n8n-runtime.ts); default /var/cache/berth/runtimes. n8n instances
   * need the site runtime (its front door) too.
   */
  runtimesDir?: string;
  log?: (line: string) => void;
}

export const MONGODB_UNAVAILABLE =
  'MongoDB needs MONGODB_ADMIN_URL (no MongoDB server is available on this host)';
const MONGODB_DRIVER_MISSING = 'MongoDB tenants need the mongodb npm package, which is not installed yet';

type SqlType = Exclude<DatabaseType, 'mongodb'>;
const ENGINES: Record<SqlType, { label: string; local: LocalEngine }> = {
  mysql: { label: 'MySQL', local: 'mariadb' },
  postgresql: { label: 'PostgreSQL', local: 'postgresql' },
};

/**
 * The local driver: MySQL instances are tenants of a MariaDB server, PostgreSQL instances tenants of a
 * PostgreSQL 15 server. By default it runs both servers itself, supervised, under `dataRoot`
 * (see mariadb-server.ts, postgres-server.ts, supervisor.ts); admin URLs select existing servers.
 */
export function createLocalDriver(options: LocalDriverOptions): ProvisioningDriver {
  const log = options.log ?? (() => {});
  const adminUrls: Record<SqlType, string | undefined> = {
    mysql: options.mysqlAdminUrl,
    postgresql: options.postgresAdminUrl,
  };
  let servers: Partial<Record<SqlType, EngineServer>> = {};
  const startErrors: Partial<Record<SqlType, string>> = {};
  let started = false;
  let n8n: LocalN8n | undefined;
  const sites: LocalSites | undefined = options.sites
    ? localSites(
        options.dataRoot,
        options.sites,
        {
          mariadb: () => servers.mysql,
          publicHost: options.publicHost,
          otherSites: async () => (await n8n?.caddySites()) ?? [],
        },
        log,
      )
    : undefined;
  n8n = sites
    ? localN8n(
        options.dataRoot,
        {
          runtimesDir: options.runtimesDir ?? DEFAULT_RUNTIMES_DIR,
          baseDomain: options.sites?.baseDomain ?? 'localhost',
        },
        () => sites,
        log,
      )
    : undefined;
  function n8nRuntime(): LocalN8n {
    if (!n8n) throw new ProvisioningUnavailableError('n8n', COMING_SOON);
    return n8n;
  }
  /** The id-keyed site operations go to the n8n instance of that id when there is one. */
  const isN8n = async (id: string) => (n8n ? n8n.has(id) : false);
  function siteRuntime(): LocalSites {
    if (!sites) throw new ProvisioningUnavailableError('wordpress', COMING_SOON);
    return sites;
  }

  /** Why the engine cannot run on this host at all (missing Debian package), if so. */
  function missingReason(type: SqlType): string | undefined {
    if (adminUrls[type]) return undefined;
    const missing = missingHostPackages([ENGINES[type].local]);
    if (missing.length === 0) return undefined;
    return `${ENGINES[type].label} needs the host package ${missing.join(' ')}: ${aptInstallLine(missing)}`;
  }

  function createServer(type: SqlType): EngineServer {
    const url = adminUrls[type];
    if (type === 'mysql') return url ? externalMariaDb(url) : localMariaDb(options.dataRoot, log);
    return url ? externalPostgres(url, log) : localPostgres(options.dataRoot, log);
  }

  async function capability(type: SqlType): Promise<Capability> {
    const missing = missingReason(type);
    if (missing) return unavailable.notOffered(type, missing);
    const server = servers[type];
    if (!started || !server) return unavailable.settingUp(type, 'The provisioning driver is not started');
    const health = await server.health();
    if (health.ok) return { available: true };
    const why = health.message ?? startErrors[type];
    return unavailable.down(type, `The ${ENGINES[type].label} server is not running${why ? `: ${why}` : ''}`);
  }

  /** MongoDB: no tenants yet, whatever the configuration; the operator reads what is missing. */
  const mongodb = () =>
    unavailable.notOffered('mongodb', options.mongodbAdminUrl ? MONGODB_DRIVER_MISSING : MONGODB_UNAVAILABLE);

  /** The server of a SQL instance type, or an unavailable error saying why there is none. */
  function serverFor(type: DatabaseType): EngineServer {
    if (type === 'mongodb') throw new ProvisioningUnavailableError(type, mongodb());
    const server = servers[type];
    if (!server) {
      const missing = missingReason(type);
      throw new ProvisioningUnavailableError(
        type,
        missing
          ? unavailable.notOffered(type, missing)
          : unavailable.settingUp(type, 'The driver is not started'),
      );
    }
    return server;
  }

  return {
    async capabilities(): Promise<Capabilities> {
      const [mysql, postgresql] = await Promise.all([capability('mysql'), capability('postgresql')]);
      return {
        mysql,
        postgresql,
        mongodb: mongodb(),
        wordpress: sites ? await sites.capability() : COMING_SOON,
        n8n: n8n ? await n8n.capability() : COMING_SOON,
      };
    },

    async deployDatabase(spec) {
      const names = tenantNames(spec.id);
      const password = spec.password === undefined ? generatePassword() : checkPassword(spec.password);
      const server = serverFor(spec.type);
      await server.tenants.create(names, password);
      const { host, port } = server.endpoint();
      return { host: options.publicHost ?? host, port, database: names.database, user: names.user, password };
    },

    async deleteDatabase(ref: DatabaseRef) {
      await serverFor(ref.type).tenants.delete(tenantNames(ref.id));
    },

    async suspendDatabase(ref: DatabaseRef) {
      await serverFor(ref.type).tenants.suspend(tenantNames(ref.id));
    },

    async resumeDatabase(ref: DatabaseRef) {
      await serverFor(ref.type).tenants.resume(tenantNames(ref.id));
    },

    async changeDatabasePassword(ref: DatabaseRef, password: string) {
      await serverFor(ref.type).tenants.setPassword(tenantNames(ref.id), checkPassword(password));
    },

    phpVersions: async () => sites?.phpVersions() ?? [],
    deploySite: (spec) => siteRuntime().deploy(spec),
    deployN8n: (spec) => n8nRuntime().deploy(spec),
    deleteSite: async (id) => ((await isN8n(id)) ? n8nRuntime().delete(id) : siteRuntime().delete(id)),
    suspendSite: async (id) => ((await isN8n(id)) ? n8nRuntime().suspend(id) : siteRuntime().suspend(id)),
    resumeSite: async (id) => ((await isN8n(id)) ? n8nRuntime().resume(id) : siteRuntime().resume(id)),
    setSiteDomain: async (id, domain) =>
      (await isN8n(id)) ? n8nRuntime().setDomain(id, domain) : siteRuntime().setDomain(id, domain),
    sslStatus: async (id) => ((await isN8n(id)) ? n8nRuntime().sslStatus(id) : siteRuntime().sslStatus(id)),
    requestSsl: async (id) =>
      (await isN8n(id)) ? n8nRuntime().requestSsl(id) : siteRuntime().requestSsl(id),
    createBackup: async (id, input) =>
      (await isN8n(id)) ? n8nRuntime().createBackup(id, input) : siteRuntime().createBackup(id, input),
    listBackups: async (id) =>
      (await isN8n(id)) ? n8nRuntime().listBackups(id) : siteRuntime().listBackups(id),
    restoreBackup: async (id, backupId) =>
      (await isN8n(id))
        ? n8nRuntime().restoreBackup(id, backupId)
        : siteRuntime().restoreBackup(id, backupId),
    deleteBackup: async (id, backupId) =>
      (await isN8n(id)) ? n8nRuntime().deleteBackup(id, backupId) : siteRuntime().deleteBackup(id, backupId),
    siteStorage: (id) => siteRuntime().storage(id),

    /** Starts what it can; an engine that fails is logged and reported by capabilities() and health(). */
    async start() {
      if (started) return;
      const types = (Object.keys(ENGINES) as SqlType[]).filter((type) => {
        const missing = missingReason(type);
        if (missing) log(missing);
        return !missing;
      });
      if (types.some((type) => !adminUrls[type])) {
        await makeTraversable(options.dataRoot);
        await ownedDir(path.join(options.dataRoot, 'run'), undefined, 0o755);
        await ownedDir(path.join(options.dataRoot, 'logs'), undefined, 0o750);
      }
      servers = Object.fromEntries(types.map((type) => [type, createServer(type)]));
      await Promise.all(
        types.map(async (type) => {
          try {
            await servers[type]?.start();
            delete startErrors[type];
          } catch (error) {
            startErrors[type] = (error as Error).message;
            log(`${ENGINES[type].label} server did not start: ${startErrors[type]}`);
          }
        }),
      );
      // Sites need MariaDB up first; they start what they can and report the rest in capabilities().
      await sites?.start();
      // n8n instances come back behind the front door the sites started.
      await n8n?.start();
      started = true;
    },

    async stop() {
      started = false;
      // n8n and sites first (SFTP, Caddy, php-fpm), the database servers last.
      await n8n?.stop();
      await sites?.stop();
      await Promise.all(Object.values(servers).map((server) => server.stop()));
      servers = {};
    },

    async health(): Promise<DriverHealth> {
      const entries = await Promise.all(
        (Object.keys(ENGINES) as SqlType[]).map(async (type): Promise<[string, ServerHealth]> => {
          const server = servers[type];
          if (server) return [type, await server.health()];
          return [
            type,
            { kind: 'none', state: 'stopped', ok: false, message: missingReason(type) ?? 'not started' },
          ];
        }),
      );
      const running = entries.filter(([type]) => servers[type as SqlType]);
      const siteServers = [
        ...(sites ? Object.entries(await sites.health()) : []),
        ...(n8n ? Object.entries(await n8n.health()) : []),
      ];
      return {
        ok: started && [...running, ...siteServers].every(([, health]) => health.ok),
        servers: Object.fromEntries([...entries, ...siteServers]),
      };
    },
  };
}
