import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { createKeyedLock } from '../../../lib/keyed-lock.ts';
import type { ServerHealth } from '../../driver.ts';
import type { CaddySite } from '../../front-door/caddy-config.ts';
import { tenantNames } from '../../tenant-names.ts';
import type { DatabaseWebAdmin } from '../databases/database-engines.ts';
import type { FrontDoor } from '../front-door/front-door.ts';
import type { ControlGroups } from '../host/control-groups.ts';
import { type OsUser, ownedDir, readState, writeState } from '../host/host.ts';
import { installedPhpVersions, socketAccepts } from '../host/php.ts';
import { hostSeccompProgram } from '../host/seccomp.ts';
import { healthOf, type SupervisedProcess, superviseProcess } from '../host/supervisor.ts';
import { ensureSiteUser, removeSiteUser } from '../host/tenant-users.ts';
import {
  PMA_INSIDE,
  PMA_LIMITS,
  phpMyAdminConfig,
  phpMyAdminFpmConfig,
  phpMyAdminHandler,
} from './phpmyadmin-files.ts';
import {
  type PhpMyAdminSandbox,
  PMA_ENV,
  phpMyAdminCommand,
  phpMyAdminMissing,
} from './phpmyadmin-sandbox.ts';

const StateSchema = z.object({
  id: z.string(),
  /** The instance server's port. */
  port: z.number().int(),
  /** Whether its certificate is verified with Berth's CA (false: an operator's, which names no 127.0.0.1). */
  verify: z.boolean(),
  /** phpMyAdmin's cookie key. */
  secret: z.string().length(32),
  suspended: z.boolean(),
});
type PmaState = z.infer<typeof StateSchema>;

const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const newSecret = () => Array.from({ length: 32 }, () => SECRET_ALPHABET[randomInt(62)]).join('');

/** The log is the phpMyAdmin user's (php-fpm reopens it): cut when a start finds it this large. */
const LOG_CUT_BYTES = 16 * 1024 * 1024;

/** Names and paths of an instance's phpMyAdmin, from its id. */
export function phpMyAdminPaths(root: string, id: string) {
  const key = id.replaceAll('-', '').slice(0, 12);
  const dir = path.join(root, 'phpmyadmin', id);
  return {
    key,
    /** First label of its host: `pma-<key>.<baseDomain>`. */
    slug: `pma-${key}`,
    unixUser: `pma_${key}`,
    /** Its control group, beside the instance's own (the database's memory is not phpMyAdmin's). */
    group: `pma-${id}`,
    dir,
    etc: path.join(dir, 'etc'),
    run: path.join(dir, 'run'),
    socket: path.join(dir, 'run', 'php.sock'),
    state: path.join(root, 'phpmyadmin-state', `${id}.json`),
    pidFile: path.join(root, 'run', `pma-${key}.pid`),
    logFile: path.join(root, 'logs', `pma-${key}.log`),
  };
}

export interface LocalPhpMyAdmin {
  /** What the MySQL engine calls for instances with a server of their own. */
  webAdmin: DatabaseWebAdmin;
  /** Brings back every instance's phpMyAdmin (before the front door loads its routes). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Each running phpMyAdmin's health, by `phpmyadmin <id>`. */
  health(): Promise<Record<string, ServerHealth>>;
}

/**
 * phpMyAdmin for MySQL instances with a server of their own: one per instance, at
 * `http://pma-<key>.<baseDomain>` on the front door, a php-fpm of Debian's phpMyAdmin in a sandbox of
 * its own (phpmyadmin-sandbox.ts) as its own user in its own control group, configured so that the only
 * server it can log in to is that instance's, over TLS, as that instance's user (phpmyadmin-files.ts).
 * It runs while the instance does (stopped while suspended: the front door's offline page answers).
 *
 * `<root>/phpmyadmin/<id>/` (root, 711): etc/ (root, 755; config.inc.php root:pma 640, holding its cookie
 * key), run/ (the user's, group caddy, 750: php.sock); `<root>/phpmyadmin-state/<id>.json` (600);
 * `<root>/run|logs/pma-<key>.*`.
 */
export function localPhpMyAdmin(
  root: string,
  deps: { door: FrontDoor; groups: ControlGroups; log: (line: string) => void },
): LocalPhpMyAdmin {
  const { door, groups, log } = deps;
  const stateDir = path.join(root, 'phpmyadmin-state');
  const lock = createKeyedLock();
  const running = new Map<string, { process: SupervisedProcess; port: number }>();

  async function states(): Promise<PmaState[]> {
    if (!existsSync(stateDir)) return [];
    const found: PmaState[] = [];
    for (const file of await readdir(stateDir)) {
      if (!file.endsWith('.json')) continue;
      const state = await readState(path.join(stateDir, file), StateSchema).catch(() => undefined);
      if (state) found.push(state);
    }
    return found;
  }

  door.addRoutes(
    async (): Promise<CaddySite[]> =>
      (await states()).map((state) => {
        const paths = phpMyAdminPaths(root, state.id);
        return {
          id: state.id,
          temporaryHost: door.temporaryHost(paths.slug),
          domain: null,
          suspended: state.suspended,
          handler: phpMyAdminHandler(paths.socket),
        };
      }),
  );

  /** Its user, group, folders and files, as the state says (the CA only when given). */
  async function prepare(state: PmaState, caPem?: string | null): Promise<PhpMyAdminSandbox> {
    const paths = phpMyAdminPaths(root, state.id);
    const caddy = door.user();
    if (!caddy) throw new Error('phpMyAdmin needs the front door (Caddy) to run as its own user');
    await ownedDir(path.join(root, 'phpmyadmin'), undefined, 0o711);
    await ownedDir(paths.dir, undefined, 0o711);
    const user = await ensureSiteUser(paths.unixUser, paths.dir);
    await groups.ensure(paths.group, PMA_LIMITS);
    await ownedDir(paths.etc, undefined, 0o755);
    await ownedDir(paths.run, { ...user, gid: caddy.gid }, 0o750);
    await writeFile(
      path.join(paths.etc, 'passwd'),
      `${user.name}:x:${user.uid}:${user.gid}::/tmp:/usr/sbin/nologin\n`,
      {
        mode: 0o644,
      },
    );
    await writeFile(path.join(paths.etc, 'group'), `${user.name}:x:${user.gid}:\n`, { mode: 0o644 });
    await writeFile(path.join(paths.etc, 'php-fpm.conf'), phpMyAdminFpmConfig(), { mode: 0o644 });
    if (caPem !== undefined) await writeFile(path.join(paths.etc, 'ca.pem'), caPem ?? '', { mode: 0o644 });
    const names = tenantNames(state.id);
    const config = path.join(paths.etc, 'config.inc.php');
    await writeFile(
      `${config}.tmp`,
      phpMyAdminConfig({
        port: state.port,
        user: names.user,
        database: names.database,
        secret: state.secret,
        verify: state.verify,
      }),
      { mode: 0o640 },
    );
    await chown(`${config}.tmp`, 0, user.gid);
    await chmod(`${config}.tmp`, 0o640);
    await rename(`${config}.tmp`, config);
    return { user, etcDir: paths.etc, runDir: paths.run, port: state.port, joins: groups.joins(paths.group) };
  }

  /** The log file, the phpMyAdmin user's (php-fpm reopens /proc/self/fd/2 as that user), cut when large. */
  async function prepareLog(file: string, user: OsUser): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    if (!existsSync(file)) await writeFile(file, '', { mode: 0o640 });
    if ((await stat(file)).size > LOG_CUT_BYTES) await truncate(file, 0);
    await chown(file, user.uid, 0);
  }

  function supervised(state: PmaState, sandbox: PhpMyAdminSandbox): SupervisedProcess {
    const paths = phpMyAdminPaths(root, state.id);
    const version = installedPhpVersions()[0];
    if (!version) throw new Error('phpMyAdmin needs php-fpm');
    const line = phpMyAdminCommand(sandbox, [
      `/usr/sbin/php-fpm${version}`,
      '--nodaemonize',
      '--fpm-config',
      `${PMA_INSIDE.etc}/php-fpm.conf`,
    ]);
    return superviseProcess(
      {
        name: `phpMyAdmin of instance ${state.id}`,
        command: line.command,
        args: line.args,
        title: line.title,
        user: line.uid === undefined ? undefined : sandbox.user,
        env: PMA_ENV,
        seccomp: hostSeccompProgram(),
        pidFile: paths.pidFile,
        logFile: paths.logFile,
        stopSignal: 'SIGTERM',
        stopTimeoutMs: 10_000,
        killTree: true,
        beforeLaunch: async () => {
          await rm(paths.socket, { force: true });
          await prepareLog(paths.logFile, sandbox.user);
        },
        ready: () => socketAccepts(paths.socket),
        readyTimeoutMs: 20_000,
      },
      log,
    );
  }

  /** Starts (or adopts) the instance's php-fpm; one started for another port is stopped first. */
  async function run(state: PmaState, sandbox: PhpMyAdminSandbox): Promise<void> {
    const known = running.get(state.id);
    if (known && known.port === state.port) {
      await known.process.start();
      return;
    }
    if (known) {
      await known.process.stop();
      running.delete(state.id);
    }
    const process = supervised(state, sandbox);
    running.set(state.id, { process, port: state.port });
    await process.start();
  }

  async function halt(id: string): Promise<void> {
    const known = running.get(id);
    if (!known) return;
    await known.process.stop();
    running.delete(id);
  }

  /** Loads the front door with the routes as the states say now (when it runs). */
  async function reload(): Promise<void> {
    if (door.running()) await door.reload();
  }

  async function setSuspended(id: string, suspended: boolean): Promise<void> {
    await lock(id, async () => {
      const paths = phpMyAdminPaths(root, id);
      const state = await readState(paths.state, StateSchema);
      if (!state) return;
      await writeState(paths.state, { ...state, suspended });
      if (suspended) await halt(id);
      else await run(state, await prepare(state));
      await reload();
    });
  }

  const webAdmin: DatabaseWebAdmin = {
    unavailable: phpMyAdminMissing,

    deploy: (id, server) =>
      lock(id, async () => {
        const paths = phpMyAdminPaths(root, id);
        const before = await readState(paths.state, StateSchema);
        const state: PmaState = {
          id,
          port: server.port,
          verify: server.caPem !== null,
          secret: before?.secret ?? newSecret(),
          suspended: before?.suspended ?? false,
        };
        await mkdir(stateDir, { recursive: true, mode: 0o700 });
        await writeState(paths.state, state);
        const sandbox = await prepare(state, server.caPem);
        if (!state.suspended) await run(state, sandbox);
        await reload();
        return `${door.urls(paths.slug, null).temporaryUrl}/`;
      }),

    suspend: (id) => setSuspended(id, true),
    resume: (id) => setSuspended(id, false),

    delete: (id) =>
      lock(id, async () => {
        const paths = phpMyAdminPaths(root, id);
        await halt(id);
        await rm(paths.state, { force: true });
        await reload();
        await groups.remove(paths.group);
        await removeSiteUser(paths.unixUser);
        await rm(paths.dir, { recursive: true, force: true });
        await rm(paths.logFile, { force: true });
      }),
  };

  return {
    webAdmin,

    async start() {
      const missing = phpMyAdminMissing();
      const all = await states();
      if (missing) {
        if (all.length > 0) log(`phpMyAdmin of ${all.length} instances not started: ${missing}`);
        return;
      }
      await Promise.all(
        all
          .filter((state) => !state.suspended)
          .map((state) =>
            lock(state.id, async () => run(state, await prepare(state))).catch((error: Error) =>
              log(`phpMyAdmin of ${state.id} did not start: ${error.message}`),
            ),
          ),
      );
    },

    async stop() {
      await Promise.all([...running.values()].map(({ process }) => process.stop()));
      running.clear();
    },

    async health() {
      const entries = await Promise.all(
        [...running.entries()].map(
          async ([id, { process }]): Promise<[string, ServerHealth]> => [
            `phpmyadmin ${id}`,
            await healthOf(process, () => socketAccepts(phpMyAdminPaths(root, id).socket), undefined),
          ],
        ),
      );
      return Object.fromEntries(entries);
    },
  };
}
