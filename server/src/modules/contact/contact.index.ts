import { createRouter } from '../../lib/create-router.ts';
import type { RateLimiter, RateLimitRule } from '../../lib/rate-limiter.ts';
import type { TurnstileVerifier } from '../../lib/turnstile.ts';
import { clientIp, rateLimit } from '../../middleware/rate-limit.ts';
import * as routes from './contact.routes.ts';
import type { ContactService } from './contact.service.ts';

export interface ContactRouterDeps {
  contact: ContactService;
  limiter: RateLimiter;
  /** Messages per client address. */
  limit: RateLimitRule;
  turnstile: TurnstileVerifier;
}

export function createContactRouter({ contact, limiter, limit, turnstile }: ContactRouterDeps) {
  const router = createRouter();
  router.use(routes.submit.getRoutingPath(), rateLimit(limiter, 'contact', limit));
  return router.openapi(routes.submit, async (c) => {
    const body = c.req.valid('json');
    await turnstile.verify(body.turnstileToken, clientIp(c));
    return c.json(await contact.submit(body, clientIp(c)), 200);
  });
}
