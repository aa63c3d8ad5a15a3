import type { Db } from '../src/db/database.ts';
import { startLiveHub } from '../src/modules/notifications/notifications.hub.ts';
import { createTestApp } from './create-test-app.ts';
import { listen } from './listen.ts';

type AppOverrides = Parameters<typeof createTestApp>[1];

/**
 * A server process of its own, wired as main.ts wires it: app, hub, and one LISTEN connection feeding
 * the hub (live while connected), on a real loopback port.
 */
export async function startServerProcess(db: Db, dbUrl: string, overrides: AppOverrides = {}) {
  const { hub, stop: stopListener } = await startLiveHub({ connectionString: dbUrl, retryMs: 50 });
  const app = createTestApp(db, { notificationHub: hub, ...overrides });
  const server = await listen(app);
  return {
    app,
    hub,
    url: server.url,
    async stop() {
      await server.close();
      await stopListener();
    },
  };
}

export type ServerProcess = Awaited<ReturnType<typeof startServerProcess>>;
