import { createRouter } from '../../lib/create-router.ts';
import * as routes from './api-keys.routes.ts';
import type { ApiKeysService } from './api-keys.service.ts';

const KEY_SHOWN_ONCE = 'API key generated. Copy it now: it is not shown again.';

export function createApiKeysRouter(keys: ApiKeysService) {
  return createRouter()
    .openapi(routes.list, async (c) => c.json({ keys: await keys.list(c.var.user.id) }, 200))
    .openapi(routes.generate, async (c) =>
      c.json({ ...(await keys.generate(c.var.user.id)), message: KEY_SHOWN_ONCE }, 201),
    )
    .openapi(routes.regenerate, async (c) =>
      c.json({ ...(await keys.regenerate(c.var.user.id)), message: KEY_SHOWN_ONCE }, 200),
    )
    .openapi(routes.update, async (c) => {
      const key = await keys.update(c.var.user.id, c.req.valid('param').id, c.req.valid('json'));
      return c.json({ key, message: 'API key details saved' }, 200);
    })
    .openapi(routes.remove, async (c) => {
      await keys.remove(c.var.user.id, c.req.valid('param').id);
      return c.json({ message: 'API key deleted' }, 200);
    });
}
