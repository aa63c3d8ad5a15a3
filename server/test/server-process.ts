import type { Db } from '../src/db/database.ts';
import { startPgListener } from '../src/lib/pg-listener.ts';
import {
  createNotificationHub,
  NOTIFICATIONS_CHANNEL,
} from '../src/modules/notifications/notifications.hub.ts';
import { createTestApp } from './create-test-app.ts';
import { listen } from './listen.ts';

type AppOverrides = Parameters<typeof createTestApp>[1];

/**
 * A server process of its own, wired as main.ts wires it: app, hub, and one LISTEN connection feeding
 * the hub (live while connected), on a real loopback port.
 */
export async function startServerProcess(db: Db, dbUrl: string, overrides: AppOverrides = {}) {
  const hub = createNotificationHub();
  const listener = await startPgListener({
    connectionString: dbUrl,
    channel: NOTIFICATIONS_CHANNEL,
    onMessage: hub.publish,
    onLost: () => hub.setLive(false),
    onReconnect: () => {
      hub.setLive(true);
      hub.resync();
    },
    retryMs: 50,
  });
  hub.setLive(true);
  const app = createTestApp(db, { notificationHub: hub, ...overrides });
  const server = await listen(app);
  return {
    app,
    hub,
    url: server.url,
    async stop() {
      await server.close();
      await listener.stop();
    },
  };
}

export type ServerProcess = Awaited<ReturnType<typeof startServerProcess>>;
