import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql, { type Pool } from 'mysql2/promise';
import { z } from 'zod';
import { freePort } from '../../lib/free-port.ts';
import { type EngineServer, healthOf } from './engine-server.ts';
import { isRoot, ownedDir, readState, serviceUser, writeState } from './host.ts';
import { mariadbTenants } from './mariadb-tenants.ts';
import { superviseProcess } from './supervisor.ts';

/** Where the local MariaDB lives under the data root. */
export function mariadbPaths(root: string) {
  const dir = path.join(root, 'mariadb');
  return {
    /** Owned by the mysql user, mode 711 (the socket is bound into site sandboxes): data (700), run/. */
    dir,
    data: path.join(dir, 'data'),
    socket: path.join(dir, 'run', 'mysqld.sock'),
    serverPidFile: path.join(dir, 'run', 'mariadbd.pid'),
    /** Remembers the port chosen at first start. */
    stateFile: path.join(root, 'mariadb.json'),
    pidFile: path.join(root, 'run', 'mariadb.pid'),
    logFile: path.join(root, 'logs', 'mariadb.log'),
  };
}

const StateSchema = z.object({ port: z.number().int() });

/**
 * A private MariaDB (Debian's mariadbd) in `<root>/mariadb`, listening on 127.0.0.1:<port> and on a
 * private socket. The admin account is root over that socket (unix_socket authentication: the API
 * runs as root), so no admin password exists anywhere.
 */
export function localMariaDb(root: string, log: (line: string) => void): EngineServer {
  const paths = mariadbPaths(root);
  const user = isRoot() ? serviceUser('mysql') : undefined;
  const adminUser = isRoot() ? 'root' : userInfo().username;
  let port = 0;
  let pool: Pool | undefined;
  const admin = (): Pool => {
    pool ??= mysql.createPool({
      socketPath: paths.socket,
      user: adminUser,
      connectionLimit: 4,
      connectTimeout: 3000,
    });
    return pool;
  };

  async function initialise(): Promise<void> {
    if (existsSync(path.join(paths.data, 'mysql'))) return;
    log(`mariadb: initialising ${paths.data}`);
    await promisify(execFile)('/usr/bin/mariadb-install-db', [
      '--no-defaults',
      ...(user ? [`--user=${user.name}`] : [`--auth-root-socket-user=${adminUser}`]),
      `--datadir=${paths.data}`,
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
    ]);
  }

  const args = () => [
    '--no-defaults',
    `--datadir=${paths.data}`,
    `--socket=${paths.socket}`,
    `--pid-file=${paths.serverPidFile}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--skip-name-resolve',
    '--innodb-buffer-pool-size=64M',
  ];

  let supervised: ReturnType<typeof superviseProcess> | undefined;

  return {
    async start() {
      // Passable (not listable) for the site users, whose sandboxes bind the socket in; data stays 700.
      await ownedDir(paths.dir, user, 0o711);
      await ownedDir(path.dirname(paths.socket), user, 0o711);
      await ownedDir(paths.data, user, 0o700);
      const state = (await readState(paths.stateFile, StateSchema)) ?? { port: await freePort() };
      await writeState(paths.stateFile, state);
      port = state.port;
      await initialise();
      supervised = superviseProcess(
        {
          name: 'mariadb',
          command: '/usr/sbin/mariadbd',
          args: args(),
          user,
          pidFile: paths.pidFile,
          logFile: paths.logFile,
          stopSignal: 'SIGTERM',
          stopTimeoutMs: 30_000,
          ready: async () => {
            await admin().query('SELECT 1');
          },
          readyTimeoutMs: 30_000,
        },
        log,
      );
      await supervised.start();
    },
    async stop() {
      await pool?.end();
      pool = undefined;
      await supervised?.stop();
    },
    tenants: mariadbTenants(admin),
    endpoint: () => ({ host: '127.0.0.1', port }),
    socket: paths.socket,
    health: () => healthOf(supervised, () => admin().query('SELECT 1'), port),
  };
}

/** An existing MariaDB/MySQL server; `url` names an account that may create databases and users. */
export function externalMariaDb(url: string): EngineServer {
  const parsed = new URL(url);
  const port = Number(parsed.port || 3306);
  let pool: Pool | undefined;
  const admin = (): Pool => {
    pool ??= mysql.createPool({ uri: url, connectionLimit: 4, connectTimeout: 3000 });
    return pool;
  };
  return {
    async start() {
      await admin().query('SELECT 1');
    },
    async stop() {
      await pool?.end();
      pool = undefined;
    },
    tenants: mariadbTenants(admin),
    endpoint: () => ({ host: parsed.hostname, port }),
    health: () => healthOf(undefined, () => admin().query('SELECT 1'), port),
  };
}
