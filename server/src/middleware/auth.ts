import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../lib/app-env.ts';
import { ForbiddenError, UnauthorizedError } from '../lib/errors.ts';

/**
 * Requires `Authorization: Bearer <token>` and puts the signed-in user in `c.var.user`. Hot paths read
 * variables with `c.get(name)`: every `c.var` read makes Hono copy all the request's variables into a
 * new object.
 */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  c.set('user', await authenticate(c.req.header('authorization'), c.get('verifyToken')));
  await next();
});

/**
 * Like `requireUser`, and then 403 unless the user is an admin in the database right now (a token issued
 * before a demotion does not keep admin rights).
 */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const user = await authenticate(c.req.header('authorization'), c.get('verifyToken'));
  if (!(await c.get('isAdmin')(user.id))) throw new ForbiddenError('Admin access required');
  c.set('user', { ...user, role: 'admin' });
  await next();
});

async function authenticate(header: string | undefined, verify: AppEnv['Variables']['verifyToken']) {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) throw new UnauthorizedError();
  return verify(match[1]);
}
