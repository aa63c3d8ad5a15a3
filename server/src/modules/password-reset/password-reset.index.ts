import { createRouter } from '../../lib/create-router.ts';
import type { RateLimiter, RateLimitRule } from '../../lib/rate-limiter.ts';
import type { TurnstileVerifier } from '../../lib/turnstile.ts';
import { accountKey, clientIp, rateLimit } from '../../middleware/rate-limit.ts';
import * as routes from './password-reset.routes.ts';
import type { PasswordResetService } from './password-reset.service.ts';

export interface PasswordResetRouterDeps {
  passwordReset: PasswordResetService;
  limiter: RateLimiter;
  /** Reset requests per client address. */
  limit: RateLimitRule;
  /** Reset requests per e-mail, whatever the address (known or not, so it reveals nothing). */
  accountLimit: RateLimitRule;
  turnstile: TurnstileVerifier;
}

export function createPasswordResetRouter({
  passwordReset,
  limiter,
  limit,
  accountLimit,
  turnstile,
}: PasswordResetRouterDeps) {
  const router = createRouter();
  router.use(routes.request.getRoutingPath(), rateLimit(limiter, 'password-reset', limit));
  return router
    .openapi(routes.request, async (c) => {
      const body = c.req.valid('json');
      await turnstile.verify(body.turnstileToken, clientIp(c));
      // After the bot check: requests that fail it do not spend the e-mail's budget.
      await limiter(accountKey('password-reset-account', body.email), accountLimit);
      return c.json(await passwordReset.request(body.email), 200);
    })
    .openapi(routes.verify, async (c) => c.json(await passwordReset.verify(c.req.valid('param').token), 200))
    .openapi(routes.reset, async (c) => c.json(await passwordReset.reset(c.req.valid('json')), 200));
}
