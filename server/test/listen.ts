import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { TestApp } from './create-test-app.ts';

/** Serves the app on a free loopback port, for tests that need real sockets (SSE, multipart). */
export function listen(app: TestApp): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Open event streams would keep close() waiting forever.
            (server as Server).closeAllConnections();
          }),
      });
    });
  });
}
