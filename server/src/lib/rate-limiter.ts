import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { RateLimitError } from './errors.ts';

export interface RateLimitRule {
  /** Requests allowed per window. */
  points: number;
  windowSeconds: number;
}

export type RateLimiter = (key: string, rule: RateLimitRule) => Promise<void>;

/**
 * A fixed-window limiter kept in PostgreSQL, so every server process shares the counts. One UPSERT per
 * request; throws RateLimitError once the window's points are used up.
 */
export function createPgRateLimiter(db: Db): RateLimiter {
  return async (key, rule) => {
    const row = await sql<{ hits: number; reset_at: Date }>`
      insert into rate_limits (key, hits, reset_at)
      values (${key}, 1, now() + make_interval(secs => ${rule.windowSeconds}))
      on conflict (key) do update set
        hits = case when rate_limits.reset_at <= now() then 1 else rate_limits.hits + 1 end,
        reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
      returning hits, reset_at`.execute(db);
    const hit = row.rows[0];
    if (hit && hit.hits > rule.points) {
      throw new RateLimitError(Math.max(1, Math.ceil((hit.reset_at.getTime() - Date.now()) / 1000)));
    }
  };
}
