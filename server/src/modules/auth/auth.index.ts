import { createRouter } from '../../lib/create-router.ts';
import type { RateLimiter, RateLimitRule } from '../../lib/rate-limiter.ts';
import { rateLimit } from '../../middleware/rate-limit.ts';
import * as routes from './auth.routes.ts';
import type { AuthService } from './auth.service.ts';

export interface AuthRateLimits {
  login: RateLimitRule;
  register: RateLimitRule;
}

export function createAuthRouter(auth: AuthService, limiter: RateLimiter, limits: AuthRateLimits) {
  const router = createRouter();
  router.use(routes.login.getRoutingPath(), rateLimit(limiter, 'login', limits.login));
  router.use(routes.register.getRoutingPath(), rateLimit(limiter, 'register', limits.register));
  return router
    .openapi(routes.register, async (c) => c.json(await auth.register(c.req.valid('json')), 201))
    .openapi(routes.login, async (c) => c.json(await auth.login(c.req.valid('json')), 200))
    .openapi(routes.profile, async (c) => c.json({ user: await auth.profile(c.var.user.id) }, 200))
    .openapi(routes.updateProfile, async (c) => {
      const user = await auth.updateProfile(c.var.user.id, c.req.valid('json'));
      return c.json({ user, message: 'Profile updated successfully!' }, 200);
    })
    .openapi(routes.changePassword, async (c) => {
      await auth.changePassword(c.var.user.id, c.req.valid('json'));
      return c.json({ message: 'Password changed successfully!' }, 200);
    });
}
