import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Db } from '../src/db/database.ts';
import { startLiveHub } from '../src/modules/notifications/notifications.hub.ts';
import { createTestApp, TEST_JWT_SECRET } from './create-test-app.ts';
import { listen } from './listen.ts';
import { spawnServer } from './server-output.ts';

type AppOverrides = Parameters<typeof createTestApp>[1];

/**
 * A Berth server process of its own: `server/src/main.ts` started as `npm start` starts it, on the test
 * database (DATABASE_URL) and a free loopback port, with provisioning off and the tests' JWT secret, so
 * a token minted in one process is read by the other and by the test's in-process app. What two such
 * processes share is only what production's share: the database, and its LISTEN/NOTIFY.
 */
export async function startServerProcess(dbUrl: string) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'berth-process-'));
  const watched = spawnServer({
    DATABASE_URL: dbUrl,
    PROVISIONER: 'none',
    JWT_SECRET: TEST_JWT_SECRET,
    BERTH_DATA_DIR: dataDir,
  });
  const { child } = watched;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  const port = await watched.port.catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid,
    /** Sends a request to this process over its socket (`call` takes it as it takes an app). */
    request: (requestPath: string, init?: RequestInit) => fetch(`${url}${requestPath}`, init),
    /** Everything the process printed so far (for a failure's report). */
    output: watched.output,
    stop,
  };
}

export type ServerProcess = Awaited<ReturnType<typeof startServerProcess>>;

/**
 * The app in this test's own process, served on a real loopback port and wired as main.ts wires it
 * (app, hub, one LISTEN connection feeding the hub), for tests that need a socket (event streams,
 * uploads) and settings main.ts takes no variable for (an upload folder, a fast heartbeat).
 */
export async function startListeningApp(db: Db, dbUrl: string, overrides: AppOverrides = {}) {
  const { hub, stop: stopListener } = await startLiveHub({ connectionString: dbUrl, retryMs: 50 });
  const app = createTestApp(db, { notificationHub: hub, ...overrides });
  const server = await listen(app);
  return {
    app,
    hub,
    url: server.url,
    request: (requestPath: string, init?: RequestInit) => app.request(requestPath, init),
    async stop() {
      await server.close();
      await stopListener();
    },
  };
}

export type ListeningApp = Awaited<ReturnType<typeof startListeningApp>>;
