import { createRouter } from '../../lib/create-router.ts';
import * as routes from './config.routes.ts';
import type { ConfigService } from './config.service.ts';

export function createConfigRouter(config: ConfigService) {
  return createRouter().openapi(routes.get, async (c) => c.json(await config.get(), 200));
}
