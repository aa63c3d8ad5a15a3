import path from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { freePort } from '../../../lib/free-port.ts';
import { generatePassword } from '../../tenant-names.ts';
import { isRoot, ownedDir, readState, serviceUser, writeState } from '../host/host.ts';
import { healthOf, type SupervisedProcess } from '../host/supervisor.ts';
import { databaseDisks } from './database-disks.ts';
import type { EngineServer, LocalDatabaseServerOptions } from './engine-server.ts';
import {
  ADMIN_ROLE,
  guardTemplate,
  initialisePostgres,
  supervisedPostgres,
  watchNotifyQueue,
} from './postgres-process.ts';
import { hardenPostgresServer, postgresSpareSteps, postgresTenants } from './postgres-tenants.ts';

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

  let supervised: SupervisedProcess | undefined;
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
      await initialisePostgres(paths, state, user, log);
      // A tablespace's folder must be there before the server touches it (after a reboot it is not).
      if (sized) await disks.mountAll();
      else log('postgresql: database sizes are not enforced: their disks need root');
      supervised = supervisedPostgres(
        paths,
        {
          port: state.port,
          user,
          ready: async () => {
            await admin().query('SELECT 1');
          },
        },
        log,
      );
      await supervised.start();
      await hardenPostgresServer(admin());
      await guardTemplate(state);
      if (sized) await disks.start(postgresSpareSteps(admin));
      notifyWatch = watchNotifyQueue(admin, log);
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
