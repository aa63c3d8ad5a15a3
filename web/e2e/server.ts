// Starts the real Berth server (node server/src/main.ts) for browser tests: a fresh data directory, so
// an embedded PostgreSQL of its own, serving the built web app from web/dist on a free port.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { removeSiteUsersUnder } from '../../server/test/provisioning/site-sandbox.ts';
import { watchServerOutput } from '../../server/test/server-output.ts';

const repo = new URL('../../', import.meta.url).pathname;

export interface RunningServer {
  baseUrl: string;
  /** The server's data directory (BERTH_DATA_DIR), removed on stop with the OS users of its sites. */
  dataDir: string;
  /** Everything the server printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A TCP port free right now on 127.0.0.1, for settings that must name the port before the server
 * starts (PUBLIC_URL). Another process could take it in between; on this test machine none does.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * `n` distinct TCP ports, free right now on 127.0.0.1, below the kernel's ephemeral range (32768 and
 * up): a test elsewhere on the machine that listens on port 0 is never handed one of them between this
 * choice and the moment the server under test binds it (as happens with ports from `freePort`).
 */
/**
 * Server settings for the real local driver, with ports of its own for the sites' front door and SFTP,
 * so that it cannot meet another server of this machine on the remembered defaults (nor on a port
 * another test was handed by the kernel: see freePortsBelowEphemeral).
 */
export async function localDriverEnv(): Promise<Record<string, string>> {
  const [http, https, sftp] = (await freePortsBelowEphemeral(3)).map(String);
  const env: Record<string, string> = { PROVISIONER: 'local' };
  if (http && https && sftp)
    Object.assign(env, { SITES_HTTP_PORT: http, SITES_HTTPS_PORT: https, SFTP_PORT: sftp });
  return env;
}

async function freePortsBelowEphemeral(n: number, from = 20_000, to = 32_000): Promise<number[]> {
  const chosen: number[] = [];
  while (chosen.length < n) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (chosen.includes(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) chosen.push(port);
  }
  return chosen;
}

/** `env` is added to (and may override) the defaults below, e.g. PORT, PUBLIC_URL, SMTP_URL. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const webDist = path.join(repo, 'web/dist');
  if (!existsSync(path.join(webDist, 'index.html'))) {
    throw new Error('web/dist is missing: run `npm run build -w @berth/web` first (npm test does)');
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'berth-e2e-'));
  const child: ChildProcess = spawn(process.execPath, [path.join(repo, 'server/src/main.ts')], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      BERTH_DATA_DIR: dataDir,
      WEB_DIST_DIR: webDist,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { port: listening, output } = watchServerOutput(child);
  const port = await listening.catch(async (err: unknown) => {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      // Sites outlive a server's stop (as they should): their users (wp_…, n8n_…, with homes in the
      // data directory) are the test's to remove, or /etc/passwd keeps one per run.
      await removeSiteUsersUnder(dataDir);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
