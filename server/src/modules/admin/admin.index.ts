import { createRouter } from '../../lib/create-router.ts';
import * as routes from './admin.routes.ts';
import type { AdminService } from './admin.service.ts';

export function createAdminRouter(admin: AdminService) {
  return createRouter()
    .openapi(routes.listUsers, async (c) => c.json(await admin.listUsers(c.req.valid('query')), 200))
    .openapi(routes.listUserSummaries, async (c) =>
      c.json(await admin.listUserSummaries(c.req.valid('query')), 200),
    )
    .openapi(routes.grantPlan, async (c) => {
      const { plan, billingCycle } = c.req.valid('json');
      return c.json(await admin.grantPlan(c.req.valid('param').id, plan, billingCycle), 200);
    })
    .openapi(routes.revokePlan, async (c) => c.json(await admin.revokePlan(c.req.valid('param').id), 200));
}
