import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../lib/app-env.ts';
import { RateLimitError, UnauthorizedError } from '../../lib/errors.ts';
import type { RateCounter, RateLimitRule, RateLimitState } from '../../lib/rate-limiter.ts';
import { clientIp } from '../../middleware/rate-limit.ts';
import { type ApiKeysService, INVALID_KEY } from '../api-keys/api-keys.service.ts';

const RATE_LIMITED = 'Rate limit exceeded. Please try again later.';

/** The plan card's figure: 150 requests per minute per key. */
export const PUBLIC_API_RATE_LIMIT: RateLimitRule = { points: 150, windowSeconds: 60 };

export interface ApiKeyGateDeps {
  keys: Pick<ApiKeysService, 'identify' | 'requirePro'>;
  count: RateCounter;
  rule: RateLimitRule;
}

/** The key a request presents: `X-API-Key: <key>`, else `Authorization: Bearer <key>`. */
function presentedKey(c: Context<AppEnv>): string | undefined {
  const header = c.req.header('x-api-key')?.trim();
  if (header) return header;
  return /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
}

/** The draft-standard rate-limit headers (and `Retry-After` on 429, set by the error handler). */
function rateLimitHeaders(state: RateLimitState, rule: RateLimitRule): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
    'RateLimit-Policy': `${rule.points};w=${rule.windowSeconds}`,
  };
}

/**
 * The gate of every /api/v1 route, as two middlewares (the first must wrap the second so the headers
 * reach error answers too):
 * 1. after everything else, puts the rate-limit headers on the answer, whatever it is;
 * 2. identifies the key (401 'Invalid or missing API key'), counts the request against the key's
 *    window in PostgreSQL, shared by every server process (429), then checks the owner is Pro now (403).
 * Requests without a valid key are counted per client address with the same rule, so they cannot
 * flood the key lookup either.
 */
export function apiKeyGate({ keys, count, rule }: ApiKeyGateDeps): MiddlewareHandler<AppEnv>[] {
  const headers: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    const state = c.get('rateLimit');
    if (state)
      for (const [name, value] of Object.entries(rateLimitHeaders(state, rule)))
        c.res.headers.set(name, value);
  };
  const gate: MiddlewareHandler<AppEnv> = async (c, next) => {
    const key = presentedKey(c);
    const holder = key ? await keys.identify(key) : undefined;
    const state = await count(
      holder ? `api-v1:key:${holder.keyId}` : `api-v1:anonymous:${clientIp(c)}`,
      rule,
    );
    c.set('rateLimit', state);
    if (state.exceeded) throw new RateLimitError(state.resetSeconds, RATE_LIMITED);
    if (!holder) throw new UnauthorizedError(INVALID_KEY);
    await keys.requirePro(holder.userId);
    c.set('apiKey', holder);
    await next();
  };
  return [headers, gate];
}
