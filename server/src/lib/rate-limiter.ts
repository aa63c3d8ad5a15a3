import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { RateLimitError } from './errors.ts';

export interface RateLimitRule {
  /** Requests allowed per window. */
  points: number;
  windowSeconds: number;
}

export type RateLimiter = (key: string, rule: RateLimitRule) => Promise<void>;

/** Where a counter stands after counting one request. */
export interface RateLimitState {
  limit: number;
  /** Requests left in this window (0 once it is used up). */
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
  /** Whether this request was one too many. */
  exceeded: boolean;
}

/** Counts one request against `key` and answers where its window stands (nothing is thrown). */
export type RateCounter = (key: string, rule: RateLimitRule) => Promise<RateLimitState>;

/**
 * A fixed-window counter kept in PostgreSQL, so every server process shares the counts. One UPSERT per
 * request.
 */
export function createPgRateCounter(db: Db): RateCounter {
  return async (key, rule) => {
    const row = await sql<{ hits: number; reset_in_ms: number }>`
      insert into rate_limits (key, hits, reset_at)
      values (${key}, 1, now() + make_interval(secs => ${rule.windowSeconds}))
      on conflict (key) do update set
        hits = case when rate_limits.reset_at <= now() then 1 else rate_limits.hits + 1 end,
        reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
      returning hits, (extract(epoch from reset_at - now()) * 1000)::float8 as reset_in_ms`.execute(db);
    const hit = row.rows[0];
    const hits = hit?.hits ?? 1;
    return {
      limit: rule.points,
      remaining: Math.max(0, rule.points - hits),
      resetSeconds: Math.max(1, Math.ceil((hit?.reset_in_ms ?? rule.windowSeconds * 1000) / 1000)),
      exceeded: hits > rule.points,
    };
  };
}

/** The same counter as a gate: throws RateLimitError once the window's points are used up. */
export function createPgRateLimiter(db: Db): RateLimiter {
  const count = createPgRateCounter(db);
  return async (key, rule) => {
    const state = await count(key, rule);
    if (state.exceeded) throw new RateLimitError(state.resetSeconds);
  };
}
