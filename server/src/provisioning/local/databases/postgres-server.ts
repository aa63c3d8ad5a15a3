import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { freePort } from '../../../lib/free-port.ts';
import { generatePassword } from '../../tenant-names.ts';
import { isRoot, ownedDir, readState, serviceUser, writeState } from '../host/host.ts';
import { healthOf, superviseProcess } from '../host/supervisor.ts';
import { databaseDisks } from './database-disks.ts';
import type { EngineServer, LocalDatabaseServerOptions } from './engine-server.ts';
import {
  guardTenantTemplate,
  hardenPostgresServer,
  postgresSpareSteps,
  postgresTenants,
  relieveNotifyQueue,
} from './postgres-tenants.ts';

const BIN = '/usr/lib/postgresql/15/bin';
/** The admin role initdb creates (a superuser of this private cluster). */
const ADMIN_ROLE = 'provisioner';

/** Where the local PostgreSQL lives under the data root. */
export function postgresPaths(root: string) {
  const dir = path.join(root, 'postgresql');
  return {
    /** Owned by the postgres user, mode 700: data and socket. */
    dir,
    data: path.join(dir, 'data'),
    socketDir: path.join(dir, 'run'),
    /** Remembers the port chosen at first start and the admin password (mode 600). */
    stateFile: path.join(root, 'postgresql.json'),
    pidFile: path.join(root, 'run', 'postgresql.pid'),
    logFile: path.join(root, 'logs', 'postgresql.log'),
  };
}

const StateSchema = z.object({ port: z.number().int(), adminPassword: z.string().min(1) });

/** How often the NOTIFY queue is looked at (postgres-tenants.ts, relieveNotifyQueue). */
const NOTIFY_CHECK_MS = 10_000;

function adminPool(config: pg.PoolConfig, log: (line: string) => void): pg.Pool {
  const pool = new pg.Pool({ max: 4, connectionTimeoutMillis: 3000, ...config });
  // A terminated admin connection (server restart) is an 'error' event; unhandled it would kill Node.
  pool.on('error', (error) => log(`postgresql admin connection: ${error.message}`));
  return pool;
}

/**
 * A private PostgreSQL 15 cluster (Debian's binaries) in `<root>/postgresql`, listening on
 * 127.0.0.1:<port> with scram-sha-256 everywhere. The admin role `provisioner` gets a generated password
 * kept in the state file. Each tenant database lies in a tablespace on a disk of its own
 * (postgres-tenants.ts, database-disks.ts), mounted before the server starts.
 */
export function localPostgres(root: string, options: LocalDatabaseServerOptions): EngineServer {
  const { log } = options;
  const paths = postgresPaths(root);
  const user = isRoot() ? serviceUser('postgres') : undefined;
  const disks = databaseDisks({
    root,
    engine: 'postgresql',
    serverDir: paths.dir,
    user,
    defaultLimitMb: options.tenantLimitMb,
    reserve: options.reserve,
    log,
  });

  let state: z.infer<typeof StateSchema> = { port: 0, adminPassword: '' };
  let pool: pg.Pool | undefined;
  const admin = (): pg.Pool => {
    pool ??= adminPool(
      {
        host: '127.0.0.1',
        port: state.port,
        user: ADMIN_ROLE,
        password: state.adminPassword,
        database: 'postgres',
      },
      log,
    );
    return pool;
  };

  /** Disks are loop mounts, which need root; a single-user dev setup runs without database sizes. */
  const sized = isRoot();
  const tenants = postgresTenants(admin, sized ? (names) => disks.dataDir(names.database) : undefined);

  async function initialise(): Promise<void> {
    if (existsSync(path.join(paths.data, 'PG_VERSION'))) return;
    log(`postgresql: initialising ${paths.data}`);
    // initdb runs as postgres and must read the password file: put it in the postgres-owned dir.
    const pwfile = path.join(paths.socketDir, 'initdb.pw');
    await writeFile(pwfile, state.adminPassword, { mode: 0o600 });
    if (user) await chown(pwfile, user.uid, user.gid);
    try {
      await promisify(execFile)(
        `${BIN}/initdb`,
        [
          `--pgdata=${paths.data}`,
          `--username=${ADMIN_ROLE}`,
          `--pwfile=${pwfile}`,
          '--auth-local=scram-sha-256',
          '--auth-host=scram-sha-256',
          '--encoding=UTF8',
          '--locale=C.UTF-8',
        ],
        { uid: user?.uid, gid: user?.gid },
      );
    } finally {
      await rm(pwfile, { force: true });
    }
  }

  /** TENANT_GUARD_SQL into template1, through a session of its own that ends before any deploy. */
  async function guardTemplate(): Promise<void> {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: state.port,
      user: ADMIN_ROLE,
      password: state.adminPassword,
      database: 'template1',
      connectionTimeoutMillis: 3000,
    });
    client.on('error', () => {});
    await client.connect();
    try {
      await guardTenantTemplate(client);
    } finally {
      await client.end();
    }
  }

  let supervised: ReturnType<typeof superviseProcess> | undefined;
  let notifyWatch: NodeJS.Timeout | undefined;

  return {
    async start() {
      await ownedDir(paths.dir, user, 0o700);
      await ownedDir(paths.socketDir, user, 0o700);
      state = (await readState(paths.stateFile, StateSchema)) ?? {
        port: await freePort(),
        adminPassword: generatePassword(),
      };
      await writeState(paths.stateFile, state);
      await initialise();
      // A tablespace's folder must be there before the server touches it (after a reboot it is not).
      if (sized) await disks.mountAll();
      else log('postgresql: database sizes are not enforced: their disks need root');
      supervised = superviseProcess(
        {
          name: 'postgresql',
          command: `${BIN}/postgres`,
          args: [
            '-D',
            paths.data,
            '-p',
            String(state.port),
            '-k',
            paths.socketDir,
            '-c',
            'listen_addresses=127.0.0.1',
          ],
          user,
          pidFile: paths.pidFile,
          logFile: paths.logFile,
          stopSignal: 'SIGINT', // "fast" shutdown: ends sessions, checkpoints, exits
          stopTimeoutMs: 30_000,
          ready: async () => {
            await admin().query('SELECT 1');
          },
          readyTimeoutMs: 30_000,
        },
        log,
      );
      await supervised.start();
      await hardenPostgresServer(admin());
      await guardTemplate();
      if (sized) await disks.start(postgresSpareSteps(admin));
      notifyWatch = setInterval(() => {
        relieveNotifyQueue(admin()).then(
          (ended) => {
            if (ended > 0)
              log(`postgresql: the NOTIFY queue grew: ${ended} tenant sessions holding it back ended`);
          },
          (error: Error) => log(`postgresql: NOTIFY queue check failed: ${error.message}`),
        );
      }, NOTIFY_CHECK_MS);
      notifyWatch.unref();
    },
    async stop() {
      clearInterval(notifyWatch);
      await disks.stop();
      await pool?.end();
      pool = undefined;
      await supervised?.stop();
      if (supervised?.status().state === 'stopped') await disks.unmountAll();
    },
    tenants: {
      ...tenants,
      async create(names, password, limitMb = options.tenantLimitMb, limits) {
        if (sized) await disks.ensure(names.database, limitMb);
        await tenants.create(names, password, limitMb, limits);
      },
      async delete(names) {
        await tenants.delete(names);
        await disks.remove(names.database);
      },
    },
    async storage(names) {
      if (!disks.has(names.database)) return undefined;
      const usage = await disks.usage(names.database);
      return { usedBytes: usage.usedBytes, limitBytes: usage.limitBytes, full: usage.freeBytes === 0 };
    },
    endpoint: () => ({ host: '127.0.0.1', port: state.port }),
    health: () => healthOf(supervised, () => admin().query('SELECT 1'), state.port),
  };
}

/** An existing PostgreSQL server; `url` names a role with CREATEDB and CREATEROLE (or a superuser). */
export function externalPostgres(url: string, log: (line: string) => void): EngineServer {
  const parsed = new URL(url);
  const port = Number(parsed.port || 5432);
  let pool: pg.Pool | undefined;
  const admin = (): pg.Pool => {
    pool ??= adminPool({ connectionString: url }, log);
    return pool;
  };
  return {
    async start() {
      await admin().query('SELECT 1');
      // Needs ownership of those databases; on a shared server an operator may have done it already.
      await hardenPostgresServer(admin()).catch((error: Error) =>
        log(`postgresql: could not close the postgres/template1 databases to tenants: ${error.message}`),
      );
    },
    async stop() {
      await pool?.end();
      pool = undefined;
    },
    tenants: postgresTenants(admin),
    endpoint: () => ({ host: parsed.hostname, port }),
    health: () => healthOf(undefined, () => admin().query('SELECT 1'), port),
  };
}
