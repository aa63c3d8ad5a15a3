import http from 'node:http';
import { N8N_INSTANCE_ENV, N8N_LEAN_ENV } from '../../apps/n8n/n8n-runtime.ts';
import { DEFAULT_LIMITS, type GroupLimits } from '../host/control-groups.ts';
import { hostSeccompProgram } from '../host/seccomp.ts';
import { type SupervisedProcess, superviseProcess } from '../host/supervisor.ts';
import { N8N_BASE_ENV, N8N_INSIDE, type N8nSandbox, n8nSandboxCommand } from './n8n-sandbox.ts';
import { type N8nState, n8nPaths } from './n8n-state.ts';

/**
 * An n8n instance's process: its heaps, its environment, its command line in its sandbox, and how the
 * supervisor knows it is ready (n8n-context.ts starts and stops it).
 */

/**
 * The heaps of n8n's two Node processes within the instance's memory: the main process half of it, the
 * JS task runner (where Code nodes run) a quarter; the rest is Node's own and the buffers outside the
 * heaps. Past the heap a process fails with Node's own error; past the group the kernel stops it.
 */
export function n8nHeapsMb(resources: GroupLimits): { main: number; runner: number } {
  return {
    main: Math.max(256, Math.floor(resources.memoryMb / 2)),
    runner: Math.max(128, Math.floor(resources.memoryMb / 4)),
  };
}

/** A plain HTTP call to an instance's loopback port (no keep-alive). */
export function n8nRequest(
  port: number,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent: false,
        timeout: 15_000,
        headers: payload
          ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }
          : {},
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end(payload);
  });
}

/** n8n's environment: its public address, its key, SQLite in /data, everything that phones home off. */
function n8nEnv(state: N8nState, sandbox: N8nSandbox, publicUrl: string): Record<string, string> {
  const url = new URL(publicUrl);
  return {
    ...N8N_BASE_ENV,
    ...N8N_LEAN_ENV,
    // SQLite, Caddy in front (X-Forwarded-*), a cookie the plain-HTTP temporary URL gets back, quiet.
    ...N8N_INSTANCE_ENV,
    // The shared compile cache, read-only (only n8n's main process reads it; its task runner does not).
    ...(sandbox.compileCache ? { NODE_COMPILE_CACHE: N8N_INSIDE.compileCache } : {}),
    N8N_PORT: String(state.port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: url.hostname,
    N8N_PROTOCOL: url.protocol.replace(':', ''),
    N8N_EDITOR_BASE_URL: `${url.origin}/`,
    WEBHOOK_URL: `${url.origin}/`,
    N8N_USER_FOLDER: N8N_INSIDE.data,
    N8N_ENCRYPTION_KEY: state.encryptionKey,
    N8N_RUNNERS_MAX_OLD_SPACE_SIZE: String(n8nHeapsMb(state.resources ?? DEFAULT_LIMITS).runner),
  };
}

/** The supervised n8n of an instance (not started): `publicUrl` is the address it answers on. */
export function supervisedN8n(
  root: string,
  state: N8nState,
  sandbox: N8nSandbox,
  publicUrl: string,
  options: { readyTimeoutMs?: number; log: (line: string) => void },
): SupervisedProcess {
  const paths = n8nPaths(root, state.id);
  const line = n8nSandboxCommand(sandbox, state.port, [
    N8N_INSIDE.node,
    `--max-old-space-size=${state.memoryMb}`,
    `${N8N_INSIDE.runtime}/node_modules/n8n/bin/n8n`,
    'start',
  ]);
  return superviseProcess(
    {
      name: `n8n of instance ${state.id}`,
      command: line.command,
      args: line.args,
      // prlimit (after the join into the group) execs pasta: the process shows pasta's command line.
      title: line.title,
      user: line.uid === undefined ? undefined : sandbox.user,
      env: n8nEnv(state, sandbox, publicUrl),
      // bwrap, at the end of the line, reads the filter on fd 3 (prlimit, pasta and sh pass it on).
      seccomp: hostSeccompProgram(),
      pidFile: paths.pidFile,
      logFile: paths.logFile,
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 15_000,
      killTree: true,
      // Ready once migrations have run and the REST controllers are mounted: /healthz/readiness and
      // /rest/settings answer 200 well before, while POST /rest/* still answers 404. An empty login
      // is then refused by the login route's own validation (400, JSON).
      ready: async () => {
        const { status, text } = await n8nRequest(state.port, 'POST', '/rest/login', {});
        if (status !== 400 || !text.includes('emailOrLdapLoginId'))
          throw new Error(`POST /rest/login answered ${status}`);
      },
      readyTimeoutMs: options.readyTimeoutMs ?? 120_000,
    },
    options.log,
  );
}
