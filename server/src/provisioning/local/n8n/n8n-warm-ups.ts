import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { installedN8nRuntime, N8N_LEAN_ENV, N8N_VERSION, n8nNodeBinary } from '../../apps/n8n/n8n-runtime.ts';
import { buildOnce } from '../../build-once.ts';

/**
 * The two one-time warm-ups of an n8n runtime, each run once per host in a sandbox without network and
 * kept root's and read-only: the template database (n8n's migrations, copied into each new instance) and
 * Node's compile cache for n8n (bound read-only into each instance). See n8n-runtime.ts for the runtime.
 */

/**
 * Makes what a warm-up wrote root's and read-only: only plain files that `keep` names stay (nothing the
 * warm-up left is followed); the folder becomes root's, readable by all.
 */
async function seal(folder: string, keep: (entry: string) => boolean): Promise<void> {
  for (const entry of await readdir(folder)) {
    const file = path.join(folder, entry);
    if (!keep(entry) || !lstatSync(file).isFile()) {
      await rm(file, { recursive: true, force: true });
      continue;
    }
    await chown(file, 0, 0);
    await chmod(file, 0o644);
  }
  await chown(folder, 0, 0);
  await chmod(folder, 0o755);
}

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
      await seal(folder, (entry) => TEMPLATE_FILES.includes(entry));
      await rm(path.join(partial, 'tmp'), { recursive: true, force: true });
      await chown(partial, 0, 0);
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
      await seal(folder, () => true);
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
