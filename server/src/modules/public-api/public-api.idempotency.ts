import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Db } from '../../db/database.ts';
import type { AppEnv } from '../../lib/app-env.ts';
import { ConflictError, ValidationError } from '../../lib/errors.ts';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
} from './public-api.repository.ts';

const IDEMPOTENCY_MISMATCH =
  'This Idempotency-Key was used with a different request. Use a new key for a new request.';
const IDEMPOTENCY_IN_PROGRESS =
  'A request with this Idempotency-Key is still being processed. Retry in a moment.';
const IDEMPOTENCY_KEY_INVALID = 'Idempotency-Key must be 1 to 255 visible ASCII characters';

/** JSON with its object keys sorted, so the same body sent with another key order is the same request. */
function canonical(text: string): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => [k, sort(v)]),
      );
    }
    return value;
  };
  try {
    return JSON.stringify(sort(JSON.parse(text)));
  } catch {
    return text;
  }
}

/**
 * Honours `Idempotency-Key` on a creating route (after the API-key gate): the first request with a key
 * runs and its successful answer is kept for 24 hours; the same key with the same method, path and body
 * replays that answer (header `Idempotent-Replayed: true`), with another body answers 409. An answer
 * that is not a success is not kept: the key is released so the client can fix the cause and retry.
 * Keys are per user (a regenerated API key keeps them).
 */
export function idempotent(db: Db): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (key === undefined) return next();
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new ValidationError(IDEMPOTENCY_KEY_INVALID);
    const { userId } = c.var.apiKey;
    // Hono keeps the body, so the route's validator reads it again.
    const body = await c.req.text();
    const requestHash = createHash('sha256')
      .update(`${c.req.method} ${c.req.path}\n${canonical(body)}`)
      .digest('hex');
    const claim = await claimIdempotencyKey(db, userId, key, requestHash);
    if (claim.kind === 'taken') {
      if (claim.requestHash !== requestHash)
        throw new ConflictError(IDEMPOTENCY_MISMATCH, { idempotencyKey: key });
      if (claim.status === null) throw new ConflictError(IDEMPOTENCY_IN_PROGRESS, { idempotencyKey: key });
      c.header('Idempotent-Replayed', 'true');
      return c.json(claim.body as object, claim.status as ContentfulStatusCode);
    }
    let stored = false;
    try {
      await next();
      if (c.res.status >= 200 && c.res.status < 300) {
        await storeIdempotentAnswer(db, userId, key, {
          status: c.res.status,
          body: await c.res.clone().json(),
        });
        stored = true;
      }
    } finally {
      if (!stored) await releaseIdempotencyKey(db, userId, key);
    }
  };
}
