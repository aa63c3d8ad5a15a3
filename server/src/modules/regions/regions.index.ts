import { createRouter } from '../../lib/create-router.ts';
import * as routes from './regions.routes.ts';
import type { RegionsService } from './regions.service.ts';

export function createRegionsRouter(regions: RegionsService) {
  return createRouter()
    .openapi(routes.adminRegions, async (c) => c.json(await regions.forAdmin(), 200))
    .openapi(routes.drainNode, async (c) => c.json(await regions.drain(c.req.valid('param').nodeId), 202))
    .openapi(routes.activateNode, async (c) =>
      c.json(await regions.activate(c.req.valid('param').nodeId), 200),
    );
}
