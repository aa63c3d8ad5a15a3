import { createRouter } from '../../lib/create-router.ts';
import type { RateLimiter, RateLimitRule } from '../../lib/rate-limiter.ts';
import type { TurnstileVerifier } from '../../lib/turnstile.ts';
import { accountKey, clientIp, isLocalRequest, rateLimit } from '../../middleware/rate-limit.ts';
import { referralCookie } from '../affiliates/referral-cookie.ts';
import * as routes from './auth.routes.ts';
import type { AuthService } from './auth.service.ts';

export interface AuthRateLimits {
  /** Sign-in attempts per client address. */
  login: RateLimitRule;
  /** Sign-in attempts per account (the e-mail or username tried), whatever the address. */
  loginAccount: RateLimitRule;
  register: RateLimitRule;
}

export interface AuthRouterDeps {
  auth: AuthService;
  limiter: RateLimiter;
  limits: AuthRateLimits;
  turnstile: TurnstileVerifier;
}

export function createAuthRouter({ auth, limiter, limits, turnstile }: AuthRouterDeps) {
  const router = createRouter();
  router.use(routes.login.getRoutingPath(), rateLimit(limiter, 'login', limits.login));
  router.use(routes.register.getRoutingPath(), rateLimit(limiter, 'register', limits.register));
  return router
    .openapi(routes.register, async (c) => {
      const body = c.req.valid('json');
      await turnstile.verify(body.turnstileToken, clientIp(c));
      const origin = { local: isLocalRequest(c), referralClick: referralCookie(c) };
      return c.json(await auth.register(body, origin), 201);
    })
    .openapi(routes.login, async (c) => {
      const body = c.req.valid('json');
      await turnstile.verify(body.turnstileToken, clientIp(c));
      // After the bot check: requests that fail it do not spend the account's budget.
      await limiter(accountKey('login-account', body.emailOrUsername), limits.loginAccount);
      return c.json(await auth.login(body), 200);
    })
    .openapi(routes.refresh, async (c) => c.json(await auth.refresh(c.req.valid('json').refreshToken), 200))
    .openapi(routes.logout, async (c) => {
      await auth.logout(c.req.valid('json').refreshToken);
      return c.json({ message: 'Logged out successfully' }, 200);
    })
    .openapi(routes.profile, async (c) => c.json({ user: await auth.profile(c.get('user').id) }, 200))
    .openapi(routes.updateProfile, async (c) => {
      const user = await auth.updateProfile(c.get('user').id, c.req.valid('json'));
      return c.json({ user, message: 'Profile updated successfully!' }, 200);
    })
    .openapi(routes.changePassword, async (c) => {
      const tokens = await auth.changePassword(c.get('user').id, c.req.valid('json'));
      return c.json({ ...tokens, message: 'Password changed successfully!' }, 200);
    });
}
