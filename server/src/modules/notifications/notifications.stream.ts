import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { HubEvent, NotificationHub } from './notifications.hub.ts';
import type { Notification } from './notifications.schemas.ts';
import type { NotificationsService } from './notifications.service.ts';

/** Browsers wait this long before reconnecting a dropped stream. */
const RETRY_MS = 3000;

export interface StreamDeps {
  hub: NotificationHub;
  notifications: Pick<NotificationsService, 'get' | 'listAfter'>;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
}

/**
 * The live notification stream of one user (Server-Sent Events): `retry: 3000` first, then the
 * notifications after `lastEventId` (a reconnect), then each new one as `event: notification` with
 * `id: <notification id>`, an `event: resync` when messages may have been missed, and a `: ping`
 * comment every `heartbeatMs`. Ends when the client goes away, and with an `event: signed-out` when the
 * user's token version moves past the one the stream was opened with (password changed or reset).
 */
export function streamNotifications(
  c: Context,
  { userId, tokenVersion }: { userId: string; tokenVersion: number },
  lastEventId: string | undefined,
  deps: StreamDeps,
) {
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    const pending: HubEvent[] = [];
    let wake = () => {};
    const unsubscribe = deps.hub.subscribe(userId, (event) => {
      pending.push(event);
      wake();
    });
    stream.onAbort(() => wake());
    const send = (n: Notification) =>
      stream.writeSSE({ event: 'notification', id: n.id, data: JSON.stringify(n) });

    try {
      await stream.write(`retry: ${RETRY_MS}\n\n`);
      const replayed = new Set<string>();
      if (lastEventId && z.uuid().safeParse(lastEventId).success) {
        for (const n of await deps.notifications.listAfter(userId, lastEventId)) {
          replayed.add(n.id);
          await send(n);
        }
      }
      while (!stream.aborted) {
        const event = pending.shift();
        if (!event) {
          const woken = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), deps.heartbeatMs);
            wake = () => {
              clearTimeout(timer);
              resolve(true);
            };
          });
          wake = () => {};
          if (!woken && !stream.aborted) await stream.write(': ping\n\n');
        } else if (event.kind === 'signed-out') {
          if (event.tokenVersion > tokenVersion) {
            await stream.writeSSE({ event: 'signed-out', data: '{}' });
            break;
          }
        } else if (event.kind === 'resync') {
          await stream.writeSSE({ event: 'resync', data: '{}' });
        } else if (event.kind === 'instance') {
          // No `id:`: Last-Event-ID stays the last notification's, for replays.
          await stream.writeSSE({ event: 'instance', data: JSON.stringify(event.instance) });
        } else if (event.kind === 'usage') {
          await stream.writeSSE({
            event: 'usage',
            data: JSON.stringify({ instanceId: event.instanceId, point: event.point }),
          });
        } else if (!replayed.has(event.id)) {
          const n = await deps.notifications.get(userId, event.id);
          if (n) await send(n);
        }
      }
    } finally {
      unsubscribe();
    }
  });
}
