import { createRouter } from '../../lib/create-router.ts';
import * as routes from './payments.routes.ts';
import type { PaymentsService } from './payments.service.ts';

export function createPaymentsRouter(payments: PaymentsService) {
  return createRouter()
    .openapi(routes.settings, (c) => c.json(payments.settings(), 200))
    .openapi(routes.billingHistory, async (c) => c.json(await payments.billingHistory(c.var.user.id), 200));
}
