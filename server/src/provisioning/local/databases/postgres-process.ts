import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { OsUser } from '../host/host.ts';
import { type SupervisedProcess, superviseProcess } from '../host/supervisor.ts';
import type { ServerVariant } from './mariadb-process.ts';
import { guardTenantTemplate, relieveNotifyQueue } from './postgres-tenants.ts';

/**
 * The private PostgreSQL's own process (postgres-server.ts runs it): its cluster made once, its
 * command line, template1's guard, and the watch on the NOTIFY queue.
 */

export const BIN = '/usr/lib/postgresql/15/bin';
/** The admin role initdb creates (a superuser of this private cluster). */
export const ADMIN_ROLE = 'provisioner';

/** How often the NOTIFY queue is looked at (postgres-tenants.ts, relieveNotifyQueue). */
const NOTIFY_CHECK_MS = 10_000;

/** The private PostgreSQL's files (postgresPaths of postgres-server.ts). */
interface PostgresFiles {
  data: string;
  socketDir: string;
  pidFile: string;
  logFile: string;
}

/** The cluster's port and the admin role's password (kept in the state file). */
interface PostgresLogin {
  port: number;
  adminPassword: string;
}

/** Makes the cluster on the first start, its admin role with the stored password. */
export async function initialisePostgres(
  files: PostgresFiles,
  login: PostgresLogin,
  user: OsUser | undefined,
  log: (line: string) => void,
): Promise<void> {
  if (existsSync(path.join(files.data, 'PG_VERSION'))) return;
  log(`postgresql: initialising ${files.data}`);
  // initdb runs as postgres and must read the password file: put it in the postgres-owned dir.
  const pwfile = path.join(files.socketDir, 'initdb.pw');
  await writeFile(pwfile, login.adminPassword, { mode: 0o600 });
  if (user) await chown(pwfile, user.uid, user.gid);
  try {
    await promisify(execFile)(
      `${BIN}/initdb`,
      [
        `--pgdata=${files.data}`,
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
export async function guardTemplate(login: PostgresLogin): Promise<void> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: login.port,
    user: ADMIN_ROLE,
    password: login.adminPassword,
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

/** postgres's command line (after the program). */
export function postgresArgs(
  files: PostgresFiles,
  server: { port: number; variant?: ServerVariant },
): string[] {
  return [
    '-D',
    files.data,
    '-p',
    String(server.port),
    '-k',
    files.socketDir,
    '-c',
    `listen_addresses=${server.variant?.bindAddress ?? '127.0.0.1'}`,
    ...(server.variant?.args ?? []),
  ];
}

/** The supervised postgres (not started), ready once `ready` (a query as the admin) succeeds. */
export function supervisedPostgres(
  files: PostgresFiles,
  server: { port: number; user: OsUser | undefined; ready(): Promise<void>; variant?: ServerVariant },
  log: (line: string) => void,
): SupervisedProcess {
  const { variant } = server;
  const args = postgresArgs(files, server);
  const launched = variant?.launch(`${BIN}/postgres`, args);
  return superviseProcess(
    {
      name: variant?.name ?? 'postgresql',
      command: launched?.command ?? `${BIN}/postgres`,
      args: launched?.args ?? args,
      ...(launched ? { title: [`${BIN}/postgres`, ...args].join('\0') } : {}),
      user: launched ? undefined : server.user,
      pidFile: files.pidFile,
      logFile: files.logFile,
      stopSignal: 'SIGINT', // "fast" shutdown: ends sessions, checkpoints, exits
      stopTimeoutMs: 30_000,
      ready: server.ready,
      readyTimeoutMs: 30_000,
    },
    log,
  );
}

/** Looks at the NOTIFY queue every NOTIFY_CHECK_MS (relieveNotifyQueue); clearInterval ends it. */
export function watchNotifyQueue(admin: () => pg.Pool, log: (line: string) => void): NodeJS.Timeout {
  const watch = setInterval(() => {
    relieveNotifyQueue(admin()).then(
      (ended) => {
        if (ended > 0)
          log(`postgresql: the NOTIFY queue grew: ${ended} tenant sessions holding it back ended`);
      },
      (error: Error) => log(`postgresql: NOTIFY queue check failed: ${error.message}`),
    );
  }, NOTIFY_CHECK_MS);
  watch.unref();
  return watch;
}
