import { createHash } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../lib/app-env.ts';
import {
  type ClientAddress,
  isLoopback,
  NO_TRUSTED_PROXIES,
  resolveClientAddress,
} from '../lib/client-address.ts';
import type { RateLimiter, RateLimitRule } from '../lib/rate-limiter.ts';

/** The socket's peer address; undefined for in-process requests (tests) that have no socket. */
function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** Headers a proxy sets to say whom it forwards for. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/**
 * Who the client is, by the one rule of lib/client-address.ts (TRUSTED_PROXY decides whether
 * X-Forwarded-For is believed). 'local' for in-process requests (tests) that have no socket.
 */
function clientAddress(c: Context<AppEnv>): ClientAddress {
  return resolveClientAddress(
    socketAddress(c),
    c.req.header('x-forwarded-for'),
    c.var.trustedProxies ?? NO_TRUSTED_PROXIES,
  );
}

/** The client's address for rate limits, the bot check and logs. */
export const clientIp = (c: Context<AppEnv>): string => clientAddress(c).address;

/**
 * Whether the request comes from this machine itself: the socket's peer is loopback and no forwarding
 * header is present at all (a reverse proxy on the same host, trusted or not, is not "this machine").
 */
export function isLocalRequest(c: Context<AppEnv>): boolean {
  return isLoopback(socketAddress(c)) && FORWARDING_HEADERS.every((name) => c.req.header(name) === undefined);
}

/** Limits a route per client address; `scope` names the counter (e.g. 'login'). */
export function rateLimit(
  limiter: RateLimiter,
  scope: string,
  rule: RateLimitRule,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await limiter(`${scope}:${clientIp(c)}`, rule);
    await next();
  };
}

/**
 * The rate-limit key of an account as typed (e-mail or username, any case), for per-account counters
 * beside the per-address ones; hashed so the limits table holds no e-mail addresses. Unknown accounts
 * are limited the same, so a 429 says nothing about whether the account exists.
 */
export const accountKey = (scope: string, login: string): string =>
  `${scope}:${createHash('sha256').update(login.trim().toLowerCase()).digest('hex')}`;
