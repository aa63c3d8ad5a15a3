import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { createKeyedLock } from '../../../lib/keyed-lock.ts';
import type { ServerHealth, StorageLimitEvent } from '../../driver.ts';
import type { DatabaseCredentials, Resources, StorageUse } from '../../engine.ts';
import { type TenantNames, tenantNames } from '../../tenant-names.ts';
import type { CertificateSource } from '../../tls/berth-ca.ts';
import { type ControlGroups, DEFAULT_LIMITS } from '../host/control-groups.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import { ownedDir, readState, writeState } from '../host/host.ts';
import { disksDir } from '../host/tenant-disks.ts';
import { ensureSiteUser, removeSiteUser } from '../host/tenant-users.ts';
import type { TenantOps } from './engine-server.ts';
import { instanceMariaDb } from './instance-mariadb.ts';
import { instancePostgres } from './instance-postgres.ts';
import { type InstanceServer, type InstanceServerPlace, installCertificate } from './instance-server.ts';
import { ensureTemplate } from './instance-templates.ts';
import { tenantLimits } from './tenant-limits.ts';

type SqlType = 'mysql' | 'postgresql';

/** The ports instance servers listen on (the README says to open them). */
const INSTANCE_PORTS = { first: 20_000, last: 29_999 } as const;

const StateSchema = z.object({
  id: z.string(),
  type: z.enum(['mysql', 'postgresql']),
  port: z.number().int(),
  memoryMb: z.number().int().positive(),
  cpus: z.number().positive(),
  limitMb: z.number().int().positive(),
  /** Set while its data is being moved in from the shared server (database-moves.ts); absent after. */
  moving: z.literal(true).optional(),
});
type InstanceState = z.infer<typeof StateSchema>;

export interface InstanceServersOptions {
  dataRoot: string;
  /** The host name in credentials (INSTANCE_PUBLIC_HOST). */
  publicHost: string;
  /** Where servers listen for customers (INSTANCE_LISTEN_ADDRESS). */
  listenAddress: string;
  certificates: CertificateSource;
  groups: ControlGroups;
  reserve?: DiskReserve;
  /** Size of a new instance's database, MiB, per type. */
  limitMb: Record<SqlType, number>;
  tellStorage(event: StorageLimitEvent): void;
  /** How often a renewed certificate is looked for (an operator's files renewed by certbot), ms. */
  certificateCheckMs?: number;
  log: (line: string) => void;
}

const CERTIFICATE_CHECK_MS = 60 * 60_000;

/** A deploy's answer: the customer's credentials, with the CA that verifies the server (null: public). */
export type InstanceCredentials = DatabaseCredentials & { tls: { caPem: string | null } };

/**
 * A server of its own for each MySQL and PostgreSQL instance on this host (the "one box"): the
 * instance's own OS user (`db_<key>`, tenant-users.ts), control group with the memory and CPU it was
 * sold (control-groups.ts), data disk, port (INSTANCE_PORTS) and TLS certificate (Berth's CA or the
 * operator's), supervised and adopted across restarts like every server of the driver. What each engine
 * runs: instance-mariadb.ts, instance-postgres.ts; the folders they start from: instance-templates.ts.
 *
 * `<root>/db-instances/<id>.json` (600) remembers each one's type, port, resources and size; `<root>/db/
 * <id>/` holds its server; `<root>/disks/db-<key>/` its disk; `<root>/run|logs/db-<key>.*` its process.
 */
export function instanceServers(options: InstanceServersOptions) {
  const { dataRoot, log } = options;
  const stateDir = path.join(dataRoot, 'db-instances');
  const stateFile = (id: string) => path.join(stateDir, `${id}.json`);
  const servers = new Map<string, { server: InstanceServer; state: InstanceState }>();
  const lock = createKeyedLock();
  const keyOf = (id: string) => id.replaceAll('-', '').slice(0, 12);
  const unixUser = (id: string) => `db_${keyOf(id)}`;
  const templates: Partial<Record<SqlType, Promise<string>>> = {};
  let certificateTimer: NodeJS.Timeout | undefined;

  const template = (type: SqlType) => {
    templates[type] ??= ensureTemplate(dataRoot, type).catch((error: Error) => {
      delete templates[type];
      throw error;
    });
    return templates[type];
  };

  async function place(state: InstanceState): Promise<InstanceServerPlace> {
    const key = keyOf(state.id);
    // Passable for each server's user (its own folder below is root's 711, its data its own 700).
    await ownedDir(path.join(dataRoot, 'db'), undefined, 0o711);
    const dir = path.join(dataRoot, 'db', state.id);
    const user = await ensureSiteUser(unixUser(state.id), dir);
    const resources = { memoryMb: state.memoryMb, cpus: state.cpus };
    await options.groups.ensure(state.id, resources);
    return {
      id: state.id,
      names: tenantNames(state.id),
      dir,
      user,
      port: state.port,
      listenAddress: options.listenAddress,
      resources,
      limitMb: state.limitMb,
      joins: options.groups.joins(state.id),
      pidFile: path.join(dataRoot, 'run', `db-${key}.pid`),
      logFile: path.join(dataRoot, 'logs', `db-${key}.log`),
      disksDir: path.join(disksDir(dataRoot), `db-${key}`),
      reserve: options.reserve,
      template: await template(state.type),
      log,
    };
  }

  /** The server of a state, made (not started) with its certificate in place. */
  async function serverOf(state: InstanceState): Promise<InstanceServer> {
    const known = servers.get(state.id);
    if (known && sameState(known.state, state)) {
      known.state = state;
      return known.server;
    }
    if (known) {
      // Its resources changed: the server starts again with the new ones.
      await known.server.stop();
      servers.delete(state.id);
    }
    const at = await place(state);
    await installCertificate(at, await options.certificates.current());
    const server = state.type === 'mysql' ? instanceMariaDb(at) : instancePostgres(at);
    server.onStorageLimit(options.tellStorage);
    servers.set(state.id, { server, state });
    return server;
  }

  /** A free port of INSTANCE_PORTS, not promised to another instance, that can be bound now. */
  async function freeInstancePort(): Promise<number> {
    const taken = new Set([...servers.values()].map(({ state }) => state.port));
    for (const state of await states()) taken.add(state.port);
    for (let port = INSTANCE_PORTS.first; port <= INSTANCE_PORTS.last; port += 1) {
      if (taken.has(port)) continue;
      if (await canBind(options.listenAddress, port)) return port;
    }
    throw new Error('No free port is left for a database server');
  }

  async function states(): Promise<InstanceState[]> {
    if (!existsSync(stateDir)) return [];
    const found: InstanceState[] = [];
    for (const file of await readdir(stateDir)) {
      if (!file.endsWith('.json')) continue;
      const state = await readState(path.join(stateDir, file), StateSchema).catch(() => undefined);
      if (state) found.push(state);
    }
    return found;
  }

  /** The running server of an instance (started when it is not), or undefined when it has none. */
  async function running(id: string): Promise<InstanceServer | undefined> {
    const state = servers.get(id)?.state ?? (await readState(stateFile(id), StateSchema));
    if (!state) return undefined;
    const server = await serverOf(state);
    await server.start();
    return server;
  }

  async function required(id: string): Promise<InstanceServer> {
    const server = await running(id);
    if (!server) throw new Error(`Instance ${id} has no server of its own`);
    return server;
  }

  /** Puts a renewed certificate into every server and has it reloaded. */
  async function refreshCertificates(): Promise<void> {
    const cert = await options.certificates.current();
    for (const { server, state } of servers.values()) {
      const at = await place(state);
      if ((await installCertificate(at, cert)) && server.running()) await server.reloadTls();
    }
  }

  return {
    /** Whether the instance has a server of its own (its state file). */
    has: (id: string) => servers.has(id) || existsSync(stateFile(id)),

    /** Brings back every instance's server (adopting those still running), side by side. */
    async start() {
      const all = await states();
      await Promise.all(
        all.map((state) =>
          lock(state.id, async () => {
            const server = await serverOf(state);
            await server.start();
          }).catch((error: Error) => log(`database server of ${state.id} did not start: ${error.message}`)),
        ),
      );
      certificateTimer = setInterval(() => {
        refreshCertificates().catch((error: Error) => log(`database certificates: ${error.message}`));
      }, options.certificateCheckMs ?? CERTIFICATE_CHECK_MS);
      certificateTimer.unref();
    },

    async stop() {
      clearInterval(certificateTimer);
      await Promise.all([...servers.values()].map(({ server }) => server.stop()));
      servers.clear();
    },

    /** Whether the instance's data is being moved in from the shared server (a move cut short). */
    async moving(id: string): Promise<boolean> {
      const state = servers.get(id)?.state ?? (await readState(stateFile(id), StateSchema));
      return state?.moving === true;
    },

    /**
     * Makes (or brings back) the instance's server and its tenant with `password`: its port, user,
     * group, disk and certificate the first time; the resources it is sold now (a change restarts it).
     * `limitMb`: the size of a new server's database (default the type's); `moving`: the state says its
     * data is being moved in until a deploy without it.
     */
    deploy(
      type: SqlType,
      id: string,
      password: string,
      resources: Resources = DEFAULT_LIMITS,
      first: { limitMb?: number; moving?: boolean } = {},
    ) {
      return lock(id, async (): Promise<InstanceCredentials> => {
        const before = servers.get(id)?.state ?? (await readState(stateFile(id), StateSchema));
        // One port choice at a time: two deploys side by side must not take the same free port.
        const state = await lock('ports', async () => {
          const chosen: InstanceState = {
            id,
            type,
            port: before?.port ?? (await freeInstancePort()),
            memoryMb: resources.memoryMb,
            cpus: resources.cpus,
            limitMb: before?.limitMb ?? first.limitMb ?? options.limitMb[type],
            ...(first.moving ? { moving: true as const } : {}),
          };
          await mkdir(stateDir, { recursive: true, mode: 0o700 });
          await writeState(stateFile(id), chosen);
          return chosen;
        });
        const server = await serverOf(state);
        await server.start();
        const names = tenantNames(id);
        await server.tenants.create(names, password, state.limitMb, tenantLimits(resources));
        const cert = await options.certificates.current();
        return {
          host: options.publicHost,
          port: state.port,
          database: names.database,
          user: names.user,
          password,
          tls: { caPem: cert.caPem },
        };
      });
    },

    /** The tenant operations of the instance's server (started when it is not). */
    tenants(id: string): Omit<TenantOps, 'create'> & { create: TenantOps['create'] } {
      const on =
        <A extends unknown[]>(call: (server: InstanceServer, ...args: A) => Promise<void>) =>
        (...args: A) =>
          lock(id, async () => call(await required(id), ...args));
      return {
        create: on((server, names: TenantNames, password: string, limitMb?: number, limits?) =>
          server.tenants.create(names, password, limitMb, limits),
        ),
        delete: on((server, names: TenantNames) => server.tenants.delete(names)),
        suspend: on((server, names: TenantNames) => server.tenants.suspend(names)),
        resume: on((server, names: TenantNames) => server.tenants.resume(names)),
        setPassword: on((server, names: TenantNames, password: string) =>
          server.tenants.setPassword(names, password),
        ),
      };
    },

    /** Where the platform logs in as the tenant for a dump or a restore (its server's socket). */
    async login(id: string): Promise<{ host: string; port: number }> {
      const server = await required(id);
      const state = servers.get(id)?.state;
      return { host: server.socket, port: state?.port ?? 0 };
    },

    async storage(id: string): Promise<StorageUse | undefined> {
      const known = servers.get(id);
      return known?.server.storage(tenantNames(id));
    },

    /** Stops the server and removes everything of it: process, disk, folder, group, user, state. */
    delete(id: string) {
      return lock(id, async () => {
        const state = servers.get(id)?.state ?? (await readState(stateFile(id), StateSchema));
        if (!state) return;
        const server = await serverOf(state);
        await server.stop();
        await server.removeDisks();
        servers.delete(id);
        await options.groups.remove(id);
        const at = path.join(dataRoot, 'db', id);
        await rm(at, { recursive: true, force: true });
        await rm(path.join(disksDir(dataRoot), `db-${keyOf(id)}`), { recursive: true, force: true });
        await removeSiteUser(unixUser(id));
        await rm(path.join(dataRoot, 'logs', `db-${keyOf(id)}.log`), { force: true });
        await rm(stateFile(id), { force: true });
      });
    },

    /** Each instance server's health, by instance id. */
    async health(): Promise<[string, ServerHealth][]> {
      return Promise.all(
        [...servers.entries()].map(
          async ([id, { server }]): Promise<[string, ServerHealth]> => [id, await server.health()],
        ),
      );
    },
  };
}

export type InstanceServers = ReturnType<typeof instanceServers>;

const sameState = (a: InstanceState, b: InstanceState) =>
  a.port === b.port && a.memoryMb === b.memoryMb && a.cpus === b.cpus && a.limitMb === b.limitMb;

function canBind(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
