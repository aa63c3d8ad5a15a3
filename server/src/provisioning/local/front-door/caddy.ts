import { existsSync } from 'node:fs';
import { chown, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { freePort } from '../../../lib/free-port.ts';
import type { ServerHealth } from '../../driver.ts';
import { type OsUser, ownedDir, readState, writeState } from '../host/host.ts';
import { healthOf, superviseProcess } from '../host/supervisor.ts';

/** Where the front door lives under the data root (XDG dirs inside, so nothing lands in $HOME). */
export function caddyPaths(root: string) {
  const dir = path.join(root, 'caddy');
  const appData = path.join(dir, 'data', 'caddy');
  return {
    /** Owned by the user Caddy runs as, mode 700. */
    dir,
    /** XDG_DATA_HOME: certificates, the local CA, locks. */
    dataHome: path.join(dir, 'data'),
    /** XDG_CONFIG_HOME (autosave is off). */
    configHome: path.join(dir, 'config'),
    /** The last configuration loaded; Caddy starts from it after a crash. */
    configFile: path.join(dir, 'caddy.json'),
    adminSocket: path.join(root, 'run', 'caddy', 'admin.sock'),
    /** Root certificate of Caddy's internal CA ("Caddy Local Authority"), created at its first issuance. */
    rootCertificate: path.join(appData, 'pki', 'authorities', 'local', 'root.crt'),
    /** Stored leaf certificates: `<this>/<issuer key>/<domain>/<domain>.crt` (`local` = internal CA). */
    certificates: path.join(appData, 'certificates'),
    /** The HTTP and HTTPS ports chosen at first start. */
    stateFile: path.join(root, 'caddy.json'),
    pidFile: path.join(root, 'run', 'caddy.pid'),
    /** Caddy's stdout and stderr: its first lines at start, a crash's stack dump (CADDY_OUTPUT_MAX_BYTES). */
    logFile: path.join(root, 'logs', 'caddy.log'),
    /** Caddy's own log (JSON lines; certificate issuance among them), rolled by Caddy (caddy-config.ts). */
    jsonLog: path.join(dir, 'logs', 'caddy.json'),
    /** Every instance's responses (JSON lines), rolled by Caddy, counted by the usage sampler. */
    accessLog: path.join(dir, 'logs', 'access.log'),
  };
}

/**
 * The most Caddy's stdout/stderr file may hold: its limit on the size of any file it writes
 * (RLIMIT_FSIZE; Go ignores SIGXFSZ, so a write past it fails and Caddy carries on). A crash with
 * thousands of threads dumps about 100 MB of stacks there (issue 28); the start after it moves the file
 * to caddy.log.1, so the two take at most twice this. Caddy's own log rolls far below it.
 */
export const CADDY_OUTPUT_MAX_BYTES = 32 * 1024 * 1024;
/** An output file larger than this at a (re)start is moved aside (a normal start writes a few kB). */
const CADDY_OUTPUT_ROTATE_BYTES = 1024 * 1024;

const PortsSchema = z.object({ httpPort: z.number().int(), httpsPort: z.number().int() });
export type CaddyPorts = z.infer<typeof PortsSchema>;

function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** Configured ports win; otherwise the ones remembered; otherwise 8180/8543 when free, else free ones. */
export async function caddyPorts(
  root: string,
  host: string,
  wanted: Partial<CaddyPorts>,
): Promise<CaddyPorts> {
  const file = caddyPaths(root).stateFile;
  const known = await readState(file, PortsSchema);
  const pick = async (preferred: number) => ((await portIsFree(preferred, host)) ? preferred : freePort());
  const ports = {
    httpPort: wanted.httpPort ?? known?.httpPort ?? (await pick(8180)),
    httpsPort: wanted.httpsPort ?? known?.httpsPort ?? (await pick(8543)),
  };
  await writeState(file, ports);
  return ports;
}

export interface AdminResponse {
  status: number;
  body: string;
}

/**
 * One request to Caddy's admin API on its unix socket. No keep-alive (`agent: false`): Caddy closes admin
 * connections around config reloads, and a reused socket would fail with "other side closed".
 */
export function caddyAdmin(
  socket: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<AdminResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      {
        socketPath: socket,
        path: url,
        method,
        agent: false,
        headers: payload ? { 'Content-Type': 'application/json' } : {},
        timeout: 30_000,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`Caddy admin ${method} ${url} timed out`)));
    request.on('error', reject);
    request.end(payload);
  });
}

export interface LocalCaddy {
  /** Starts (or adopts) Caddy and loads `config`. */
  start(config: unknown): Promise<void>;
  /** Replaces the whole running configuration (and the file Caddy restarts from). */
  load(config: unknown): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<ServerHealth>;
}

/**
 * How Caddy is started: through prlimit (its file size limit, CADDY_OUTPUT_MAX_BYTES), then as `user`
 * directly, or, for ports below 1024, through setpriv, which becomes `user` keeping only
 * CAP_NET_BIND_SERVICE (ambient, so it survives the exec of caddy): the front door never runs as root.
 * Both exec Caddy: the running process shows Caddy's own command line (the title).
 */
function caddyLaunch(user: OsUser | undefined, lowPorts: boolean, configFile: string) {
  const caddy = ['/usr/bin/caddy', 'run', '--config', configFile];
  const viaSetpriv = user !== undefined && lowPorts;
  const setpriv = viaSetpriv
    ? [
        '/usr/bin/setpriv',
        `--reuid=${user.uid}`,
        `--regid=${user.gid}`,
        '--init-groups',
        '--inh-caps=-all,+net_bind_service',
        '--ambient-caps=-all,+net_bind_service',
        '--bounding-set=-all,+net_bind_service',
        '--no-new-privs',
        '--',
      ]
    : [];
  return {
    command: '/usr/bin/prlimit',
    args: [`--fsize=${CADDY_OUTPUT_MAX_BYTES}`, '--', ...setpriv, ...caddy],
    user: viaSetpriv ? undefined : user,
    title: caddy.join('\0'),
  };
}

/**
 * Caddy (Debian's 2.6) supervised: `caddy run --config <root>/caddy/caddy.json`, admin API on a unix
 * socket, run as the `caddy` user when given (always when we are root), else as we run.
 */
export function localCaddy(
  root: string,
  user: OsUser | undefined,
  lowPorts: boolean,
  log: (line: string) => void,
): LocalCaddy {
  const paths = caddyPaths(root);
  const admin = (method: string, url: string, body?: unknown) =>
    caddyAdmin(paths.adminSocket, method, url, body);
  const supervised = superviseProcess(
    {
      name: 'caddy',
      ...caddyLaunch(user, lowPorts, paths.configFile),
      env: {
        PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        HOME: paths.dir,
        XDG_DATA_HOME: paths.dataHome,
        XDG_CONFIG_HOME: paths.configHome,
      },
      pidFile: paths.pidFile,
      logFile: paths.logFile,
      rotateLogAboveBytes: CADDY_OUTPUT_ROTATE_BYTES,
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 10_000,
      ready: async () => {
        const response = await admin('GET', '/config/');
        if (response.status !== 200) throw new Error(`admin API answered ${response.status}`);
      },
      readyTimeoutMs: 15_000,
    },
    log,
  );

  async function writeConfig(config: unknown): Promise<void> {
    await writeFile(paths.configFile, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    if (user) await chown(paths.configFile, user.uid, user.gid);
  }

  async function load(config: unknown): Promise<void> {
    await writeConfig(config);
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await admin('POST', '/load', config);
        if (response.status === 200) return;
        throw new Error(`Caddy refused the configuration (${response.status}): ${response.body.trim()}`);
      } catch (error) {
        // A connection closed by Caddy's own reload is retried; a refusal is not.
        if (attempt >= 3 || (error as Error).message.startsWith('Caddy refused')) throw error;
        await sleep(100 * attempt);
      }
    }
  }

  return {
    async start(config) {
      const dirs = [paths.dir, paths.dataHome, paths.configHome, path.dirname(paths.jsonLog)];
      for (const dir of [...dirs, path.dirname(paths.adminSocket)]) {
        await ownedDir(dir, user, 0o700);
      }
      // A stale socket from a crashed Caddy makes the new one fail to listen; a live one is adopted.
      if (!existsSync(paths.pidFile)) await rm(paths.adminSocket, { force: true });
      await writeConfig(config);
      await supervised.start();
      await load(config);
    },
    load,
    stop: () => supervised.stop(),
    health: () => healthOf(supervised, () => admin('GET', '/config/'), undefined),
  };
}
