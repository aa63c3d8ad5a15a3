// What every request of the app carries (Hono's `Env`): the variables middlewares set on the context.
import type { TrustedProxies } from './client-address.ts';
import type { RateLimitState } from './rate-limiter.ts';

/** The signed-in user, as a verified token tells it. */
export interface AuthUser {
  id: string;
  role: 'user' | 'admin';
  /** The user's token version the token was signed at (checked against the current one). */
  tokenVersion: number;
  /**
   * The sign-in the token belongs to (its refresh-token family): signing that session out ends what
   * was bound to it (a backup download link). Absent in tokens signed before sessions were named.
   */
  sessionId?: string;
}

export interface AppEnv {
  Variables: {
    /** Set first for every request by `responseHeaders` (lib/response-headers.ts): the reference of its errors. */
    requestId: string;
    /** Set by `requireUser` on authenticated routes. */
    user: AuthUser;
    /** Installed once by createApp so route-level middleware can verify tokens. */
    verifyToken: (token: string) => Promise<AuthUser>;
    /** Installed once by createApp: whether the user is an admin now, as the database tells it. */
    isAdmin: (userId: string) => Promise<boolean>;
    /** Installed once by createApp: which proxies' X-Forwarded-For is believed (TRUSTED_PROXY). */
    trustedProxies: TrustedProxies;
    /** Set by the API-key gate on /api/v1 routes (modules/public-api): the key and its owner. */
    apiKey: { keyId: string; userId: string };
    /** Set by the API-key gate on /api/v1 routes: where the key's rate-limit window stands. */
    rateLimit: RateLimitState;
  };
}
