import { createRouter } from '../../lib/create-router.ts';
import { UnauthorizedError } from '../../lib/errors.ts';
import { STREAM_TOKEN_TTL_SECONDS, type TokenService } from '../../lib/tokens.ts';
import type { NotificationHub } from './notifications.hub.ts';
import * as routes from './notifications.routes.ts';
import type { NotificationsService } from './notifications.service.ts';
import { streamNotifications } from './notifications.stream.ts';

const NOTIFICATION_POLL_INTERVAL_MS = 60_000;

export interface NotificationsRouterDeps {
  notifications: NotificationsService;
  tokens: Pick<TokenService, 'signStream' | 'verifyStream'>;
  /** The user's current token version (a stream token of an older one opens nothing). */
  tokenVersion: (userId: string) => Promise<number | undefined>;
  hub: NotificationHub;
  smtpEnabled: boolean;
  heartbeatMs: number;
}

export function createNotificationsRouter({
  notifications,
  tokens,
  tokenVersion,
  hub,
  smtpEnabled,
  heartbeatMs,
}: NotificationsRouterDeps) {
  return createRouter()
    .openapi(routes.list, async (c) => c.json(await notifications.list(c.var.user.id), 200))
    .openapi(routes.markRead, async (c) =>
      c.json(await notifications.markRead(c.var.user.id, c.req.valid('json')), 200),
    )
    .openapi(routes.removeAll, async (c) => c.json(await notifications.removeAll(c.var.user.id), 200))
    .openapi(routes.remove, async (c) =>
      c.json(await notifications.remove(c.var.user.id, c.req.valid('param').id), 200),
    )
    .openapi(routes.config, (c) =>
      c.json(
        {
          pollIntervalMs: NOTIFICATION_POLL_INTERVAL_MS,
          streamUrl: routes.stream.path,
          streamTokenUrl: routes.streamToken.path,
          smtpEnabled,
        },
        200,
      ),
    )
    .openapi(routes.streamToken, async (c) =>
      c.json(
        {
          token: await tokens.signStream({ userId: c.var.user.id, tokenVersion: c.var.user.tokenVersion }),
          expiresIn: STREAM_TOKEN_TTL_SECONDS,
        },
        200,
      ),
    )
    .openapi(routes.stream, async (c) => {
      const query = c.req.valid('query');
      // Refused before streaming starts, so a bad token gets a JSON 401 the client can act on.
      const claims = await tokens.verifyStream(query.token);
      if ((await tokenVersion(claims.userId)) !== claims.tokenVersion)
        throw new UnauthorizedError('Invalid or expired stream token');
      const lastEventId = c.req.header('last-event-id') ?? query.lastEventId;
      return streamNotifications(c, claims, lastEventId, { hub, notifications, heartbeatMs });
    });
}
