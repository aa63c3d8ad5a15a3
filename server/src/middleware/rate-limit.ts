import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import type { RateLimiter, RateLimitRule } from '../lib/rate-limiter.ts';

/** The peer address, or 'local' for in-process requests (tests) that have no socket. */
export function clientIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'local';
  } catch {
    return 'local';
  }
}

/** Limits a route per client address; `scope` names the counter (e.g. 'login'). */
export function rateLimit(limiter: RateLimiter, scope: string, rule: RateLimitRule): MiddlewareHandler {
  return async (c, next) => {
    await limiter(`${scope}:${clientIp(c)}`, rule);
    await next();
  };
}
