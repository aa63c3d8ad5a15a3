import { createRouter } from '../../lib/create-router.ts';
import { NotFoundError } from '../../lib/errors.ts';
import * as routes from './usage.routes.ts';
import type { UsageService } from './usage.service.ts';

export function createUsageRouter(usage: UsageService) {
  return createRouter()
    .openapi(routes.instanceUsage, async (c) => {
      const report = await usage.report(c.var.user.id, c.req.valid('param').id, c.req.valid('query').range);
      return c.json(report, 200);
    })
    .openapi(routes.hostCapacity, async (c) => {
      const capacity = await usage.capacity();
      if (!capacity) throw new NotFoundError('This server measures no usage (no provisioning driver)');
      return c.json(capacity, 200);
    });
}
