import { createRouter } from '../../lib/create-router.ts';
import * as routes from './subscriptions.routes.ts';
import type { SubscriptionsService } from './subscriptions.service.ts';

export function createSubscriptionsRouter(subscriptions: SubscriptionsService) {
  return createRouter()
    .openapi(routes.status, async (c) => c.json(await subscriptions.status(c.var.user.id), 200))
    .openapi(routes.canCreateInstance, async (c) =>
      c.json(await subscriptions.canCreateInstance(c.var.user.id), 200),
    );
}
