import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../lib/create-router.ts';
import { UnauthorizedError } from '../lib/errors.ts';

/** Requires `Authorization: Bearer <token>` and puts the signed-in user in `c.var.user`. */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
  if (!match?.[1]) throw new UnauthorizedError();
  c.set('user', await c.var.verifyToken(match[1]));
  await next();
});
