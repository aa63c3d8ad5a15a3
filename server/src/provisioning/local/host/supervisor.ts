import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerHealth, ServerState } from '../../driver.ts';
import type { OsUser } from './host.ts';
import { descendants, rotateLog, runs, signal, waitDead, waitNotRunning } from './processes.ts';
import { feedSeccomp } from './seccomp.ts';

export { descendants } from './processes.ts';

/**
 * Runs one server process and keeps it running:
 * - spawned directly as its service user (no su/runuser wrapper, so the pid is the server itself), in
 *   its own process group, so it outlives a crashed API process;
 * - its pid is kept in `pidFile`; on start, a process named there is adopted when /proc/<pid>/cmdline is
 *   exactly our command line, otherwise the pid file is stale and removed;
 * - started = `ready()` answered; an unexpected exit restarts it with exponential backoff (0.5 s … 30 s);
 * - stop sends `stopSignal` and escalates to SIGKILL after `stopTimeoutMs`.
 */
export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  /** Run as this user (when the API runs as root); otherwise as ourselves. */
  user: OsUser | undefined;
  /** The environment of the process; default: ours. */
  env?: Record<string, string>;
  /**
   * The command line the process shows once running, when it rewrites its own (php-fpm: "php-fpm: master
   * process (<config>)") or execs another program (setpriv → caddy; arguments joined by NUL). Adoption
   * and liveness accept it as well as the spawned command line.
   */
  title?: string;
  /**
   * Stopping signals the process and every descendant (a sandbox: bwrap, the init of its PID namespace
   * and everything inside), collected before the first signal, and waits for all of them.
   */
  killTree?: boolean;
  pidFile: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  /**
   * When set, a log file larger than this at a (re)start is moved to `<logFile>.1` (replacing the one
   * before) and the new run starts a fresh file: a crash loop writing stack dumps keeps two runs' output.
   * (What one run may write is the process's own limit: Caddy's RLIMIT_FSIZE, caddy.ts.)
   */
  rotateLogAboveBytes?: number;
  /** A sandbox's seccomp program: written to a pipe the process inherits as fd 3 (`bwrap --seccomp 3`). */
  seccomp?: Uint8Array;
  stopSignal: NodeJS.Signals;
  stopTimeoutMs: number;
  /**
   * Runs before each spawn (the first and every restart; not before adopting a running process), e.g.
   * to make room a crash recovery needs. A failure fails that start.
   */
  beforeLaunch?: () => Promise<void>;
  /** Resolves when the server answers (e.g. `SELECT 1`); rejects while it does not. */
  ready: () => Promise<void>;
  readyTimeoutMs: number;
}

interface ProcessStatus {
  state: ServerState;
  pid: number | undefined;
  /** Whether the running process was found alive at start rather than spawned by us. */
  adopted: boolean;
  restarts: number;
  lastError: string | undefined;
}

export interface SupervisedProcess {
  /** Adopts or spawns the process and waits until it is ready; throws if it is not (restarts continue). */
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): ProcessStatus;
}

const MAX_BACKOFF_MS = 30_000;

/** A process that ran this long before dying starts the backoff from scratch. */
const STABLE_MS = 60_000;

/**
 * Spawns the server detached (its own process group), as its user, its output appended to its log
 * (rotated first when asked), its seccomp program fed to fd 3. Throws when it could not be spawned.
 */
function spawnServer(spec: ProcessSpec, log: (line: string) => void) {
  if (spec.rotateLogAboveBytes !== undefined) rotateLog(spec.logFile, spec.rotateLogAboveBytes);
  const logFd = openSync(spec.logFile, 'a');
  const child = spawn(spec.command, spec.args, {
    uid: spec.user?.uid,
    gid: spec.user?.gid,
    ...(spec.env ? { env: spec.env } : {}),
    detached: true,
    stdio: ['ignore', logFd, logFd, ...(spec.seccomp ? (['pipe'] as const) : [])],
  });
  closeSync(logFd);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) {
    // Spawning failed outright (e.g. ENOENT); 'error' says why.
    child.once('error', (error) => log(`${spec.name} could not be spawned: ${error.message}`));
    throw new Error(`${spec.name} could not be spawned (${spec.command})`);
  }
  if (spec.seccomp) feedSeccomp(child, spec.seccomp);
  return { child, pid };
}

export function superviseProcess(spec: ProcessSpec, log: (line: string) => void): SupervisedProcess {
  const cmdline = `${[spec.command, ...spec.args].join('\0')}\0`;
  let wanted = false;
  let state: ServerState = 'stopped';
  let current: { pid: number; adopted: boolean } | undefined;
  let startedAt = 0;
  let restarts = 0;
  let failures = 0;
  let lastError: string | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let watchTimer: NodeJS.Timeout | undefined;
  /** True while `pid` is our server. */
  const isOurs = (pid: number) => runs(pid, cmdline, spec.title);

  /** Called once per process when it dies, whether we spawned or adopted it. */
  function gone(pid: number, reason: string): void {
    if (current?.pid !== pid) return;
    current = undefined;
    clearInterval(watchTimer);
    rmSync(spec.pidFile, { force: true });
    if (!wanted) {
      state = 'stopped';
      return;
    }
    lastError = reason;
    if (Date.now() - startedAt > STABLE_MS) failures = 0;
    const delay = Math.min(500 * 2 ** failures, MAX_BACKOFF_MS);
    failures += 1;
    state = 'restarting';
    log(`${spec.name} ${reason}; restarting in ${delay} ms`);
    restartTimer = setTimeout(() => {
      restarts += 1;
      boot().catch((error: Error) => log(`${spec.name} restart failed: ${error.message}`));
    }, delay);
    restartTimer.unref();
  }

  function launch(): void {
    const { child, pid } = spawnServer(spec, log);
    current = { pid, adopted: false };
    writeFileSync(spec.pidFile, `${pid}\n`);
    child.once('exit', (code, sig) => gone(pid, sig ? `was killed by ${sig}` : `exited with code ${code}`));
  }

  function adopt(): boolean {
    let pid = Number.NaN;
    try {
      pid = Number.parseInt(readFileSync(spec.pidFile, 'utf8'), 10);
    } catch {
      // no pid file
    }
    if (!Number.isInteger(pid) || !isOurs(pid)) {
      rmSync(spec.pidFile, { force: true });
      return false;
    }
    current = { pid, adopted: true };
    // Not our child, so no 'exit' event: poll /proc instead.
    watchTimer = setInterval(() => {
      if (!isOurs(pid)) gone(pid, `(adopted pid ${pid}) disappeared`);
    }, 1000);
    watchTimer.unref();
    log(`${spec.name}: adopted running pid ${pid}`);
    return true;
  }

  async function waitReady(pid: number): Promise<void> {
    const deadline = Date.now() + spec.readyTimeoutMs;
    for (;;) {
      if (!wanted || current?.pid !== pid) {
        throw new Error(`${spec.name} ${wanted ? lastError : 'was stopped'} before it was ready`);
      }
      try {
        await spec.ready();
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(
            `${spec.name} not ready after ${spec.readyTimeoutMs} ms: ${(error as Error).message}`,
          );
        }
      }
      await sleep(50);
    }
  }

  async function boot(): Promise<void> {
    state = 'starting';
    startedAt = Date.now();
    try {
      if (!adopt()) {
        await spec.beforeLaunch?.();
        if (!wanted) throw new Error(`${spec.name} was stopped before it was launched`);
        launch();
      }
    } catch (error) {
      state = 'failed';
      lastError = (error as Error).message;
      throw error;
    }
    const pid = current?.pid ?? 0;
    try {
      await waitReady(pid);
      if (wanted) state = 'running';
    } catch (error) {
      lastError = (error as Error).message;
      // A process that never became ready is killed; its exit schedules the next attempt.
      if (current?.pid === pid) signal(pid, 'SIGKILL');
      throw error;
    }
  }

  return {
    async start() {
      if (wanted) return;
      wanted = true;
      await boot();
    },

    async stop() {
      wanted = false;
      clearTimeout(restartTimer);
      const proc = current;
      if (!proc) {
        state = 'stopped';
        return;
      }
      state = 'stopping';
      const tree = spec.killTree ? descendants(proc.pid) : [];
      for (const pid of [proc.pid, ...tree]) signal(pid, spec.stopSignal);
      const allGone = async (ms: number) =>
        (await waitNotRunning(proc.pid, cmdline, spec.title, ms)) && (await waitDead(tree, ms));
      if (!(await allGone(spec.stopTimeoutMs))) {
        log(`${spec.name} did not stop within ${spec.stopTimeoutMs} ms: SIGKILL`);
        for (const pid of [proc.pid, ...tree]) signal(pid, 'SIGKILL');
        await allGone(5000);
      }
      gone(proc.pid, 'stopped');
    },

    status: () => ({
      state,
      pid: current?.pid,
      adopted: current?.adopted ?? false,
      restarts,
      lastError,
    }),
  };
}

/** Health of a server: its process (when we run it) plus whether `ping` answered. */
export async function healthOf(
  supervised: SupervisedProcess | undefined,
  ping: () => Promise<unknown>,
  port: number | undefined,
): Promise<ServerHealth> {
  const ok = await ping().then(
    () => true,
    () => false,
  );
  if (!supervised) return { kind: 'external', state: ok ? 'running' : 'failed', ok, port };
  const status = supervised.status();
  return {
    kind: 'local',
    state: status.state,
    ok,
    pid: status.pid,
    port,
    restarts: status.restarts,
    ...(status.lastError ? { message: status.lastError } : {}),
  };
}
