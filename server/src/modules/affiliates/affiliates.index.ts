import type { Context } from 'hono';
import type { AppEnv } from '../../lib/app-env.ts';
import { createRouter } from '../../lib/create-router.ts';
import type { RateLimiter, RateLimitRule } from '../../lib/rate-limiter.ts';
import { clientIp, rateLimit } from '../../middleware/rate-limit.ts';
import { ATTRIBUTION_DAYS } from './affiliate-program.ts';
import * as routes from './affiliates.routes.ts';
import type { AffiliatesServices } from './affiliates.service.ts';
import { setReferralCookie } from './referral-cookie.ts';

export interface AffiliatesRouterDeps {
  affiliates: AffiliatesServices;
  limiter: RateLimiter;
  /** Click reports per client address. */
  clickLimit: RateLimitRule;
}

/** The signed-in user of an optional bearer token (a bad token is a visitor). */
async function optionalUser(c: Context<AppEnv>): Promise<string | undefined> {
  const match = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
  if (!match?.[1]) return undefined;
  return c.var.verifyToken(match[1]).then(
    (u) => u.id,
    () => undefined,
  );
}

export function createAffiliatesRouter({ affiliates, limiter, clickLimit }: AffiliatesRouterDeps) {
  const { profiles, figures, payouts, referrals } = affiliates;
  const router = createRouter();
  router.use(routes.trackClick.getRoutingPath(), rateLimit(limiter, 'affiliate-click', clickLimit));
  return router
    .openapi(routes.register, async (c) =>
      c.json(await profiles.register(c.var.user.id, c.req.valid('json')), 201),
    )
    .openapi(routes.me, async (c) => c.json(await profiles.me(c.var.user.id), 200))
    .openapi(routes.dashboard, async (c) => c.json(await figures.dashboard(c.var.user.id), 200))
    .openapi(routes.stats, async (c) =>
      c.json(await figures.stats(c.var.user.id, c.req.valid('query').year), 200),
    )
    .openapi(routes.referral, async (c) =>
      c.json(await profiles.updateReferral(c.var.user.id, c.req.valid('json')), 200),
    )
    .openapi(routes.paymentDetails, async (c) =>
      c.json(await profiles.updatePaymentDetails(c.var.user.id, c.req.valid('json')), 200),
    )
    .openapi(routes.generateCode, async (c) =>
      c.json(await profiles.generateCode(c.var.user.id, c.req.valid('query').force), 200),
    )
    .openapi(routes.listPayouts, async (c) => c.json(await payouts.list(c.var.user.id), 200))
    .openapi(routes.requestPayout, async (c) =>
      c.json(await payouts.request(c.var.user.id, c.req.valid('json').amount), 201),
    )
    .openapi(routes.trackClick, async (c) => {
      const result = await referrals.trackClick(c.req.valid('param').code, {
        address: clientIp(c),
        userAgent: c.req.header('user-agent'),
        userId: await optionalUser(c),
      });
      // Last click wins: each counted (or today's already counted) click replaces the cookie.
      if (result.clickId) setReferralCookie(c, result.clickId, ATTRIBUTION_DAYS);
      return c.json({ tracked: result.tracked, counted: result.counted }, 200);
    })
    .openapi(routes.adminList, async (c) =>
      c.json({ items: await payouts.adminList(c.req.valid('query').status) }, 200),
    )
    .openapi(routes.adminComplete, async (c) =>
      c.json(await payouts.complete(c.req.valid('param').id, c.req.valid('json').transactionId), 200),
    )
    .openapi(routes.adminFail, async (c) =>
      c.json(await payouts.fail(c.req.valid('param').id, c.req.valid('json').reason), 200),
    );
}
