import { createRouter } from '../../lib/create-router.ts';
import * as routes from './avatars.routes.ts';
import type { AvatarsService } from './avatars.service.ts';

export function createAvatarsRouter(avatars: AvatarsService) {
  return createRouter()
    .openapi(routes.upload, async (c) => {
      const user = await avatars.upload(c.var.user.id, c.req.valid('form').avatar);
      return c.json({ user, message: 'Profile picture updated' }, 200);
    })
    .openapi(routes.remove, async (c) =>
      c.json({ user: await avatars.remove(c.var.user.id), message: 'Profile picture removed' }, 200),
    )
    .openapi(routes.file, async (c) => {
      const { bytes, contentType } = await avatars.read(c.req.valid('param').file);
      return c.body(bytes, 200, {
        'content-type': contentType,
        'cache-control': 'public, max-age=31536000, immutable',
      });
    });
}
