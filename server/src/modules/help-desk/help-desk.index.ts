import { createRouter } from '../../lib/create-router.ts';
import type { RateLimiter, RateLimitRule } from '../../lib/rate-limiter.ts';
import * as routes from './help-desk.routes.ts';
import type { HelpDeskService } from './help-desk.service.ts';

export interface HelpDeskRouterDeps {
  help: HelpDeskService;
  limiter: RateLimiter;
  /** Per user: image uploads, and tickets sent (disk and inbox flooding). */
  limits: { upload: RateLimitRule; submit: RateLimitRule };
}

export function createHelpDeskRouter({ help, limiter, limits }: HelpDeskRouterDeps) {
  return createRouter()
    .openapi(routes.upload, async (c) => {
      await limiter(`help-upload:${c.var.user.id}`, limits.upload);
      return c.json({ file: await help.upload(c.var.user.id, c.req.valid('form').file) }, 201);
    })
    .openapi(routes.removeUpload, async (c) => {
      await help.removeUpload(c.var.user.id, c.req.valid('param').file);
      return c.json({ message: 'File deleted' }, 200);
    })
    .openapi(routes.file, async (c) => {
      const user = c.var.user;
      const { bytes, contentType } = await help.readUpload(
        { id: user.id, isAdmin: await c.var.isAdmin(user.id) },
        c.req.valid('param').file,
      );
      return c.body(bytes, 200, {
        'content-type': contentType,
        // Private to this user: no shared cache keeps it; nothing in it may run.
        'cache-control': 'private, max-age=3600',
        'content-security-policy': "default-src 'none'",
        'content-disposition': 'inline',
      });
    })
    .openapi(routes.submit, async (c) => {
      await limiter(`help-submit:${c.var.user.id}`, limits.submit);
      return c.json({ item: await help.submit(c.var.user.id, c.req.valid('json')) }, 201);
    })
    .openapi(routes.mine, async (c) => c.json({ items: await help.listMine(c.var.user.id) }, 200))
    .openapi(routes.all, async (c) => c.json(await help.listAll(c.req.valid('query')), 200))
    .openapi(routes.remove, async (c) => {
      await help.remove(c.var.user.id, c.req.valid('param').id);
      return c.json({ message: 'Ticket deleted' }, 200);
    })
    .openapi(routes.setStatus, async (c) =>
      c.json({ item: await help.setStatus(c.req.valid('param').id, c.req.valid('json').status) }, 200),
    )
    .openapi(routes.answer, async (c) =>
      c.json({ item: await help.answer(c.var.user.id, c.req.valid('param').id, c.req.valid('json')) }, 200),
    );
}
