import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from './app-env.ts';
import type { LogLine } from './error-reference.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';

/**
 * The security headers of every answer: Hono's `secureHeaders()` defaults without
 * Cross-Origin-Resource-Policy (avatars and the web app's files are loaded from other origins).
 * Written out once here instead of being worked out per request.
 */
const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/** The paths Hono's `/api/*` pattern matches (`/api` itself too). */
const isApi = (path: string) => path === '/api' || path.startsWith('/api/');

/**
 * What every answer carries, set in one pass after the route has answered (so answers made outside the
 * context, a static file or an error answer, get them too):
 * - a request id (`c.var.requestId`, the X-Request-Id header, the reference of its errors): the caller's
 *   X-Request-Id when it is a safe short token, else a fresh one;
 * - the security headers above (replacing any a route set), and no X-Powered-By;
 * - on /api/*, CORS for any origin (`Access-Control-Allow-Origin: *`; preflights are answered by Hono's
 *   `cors()`, which this calls for OPTIONS only);
 * - with `accessLog`, one line per request: id, method, path, status, duration.
 *
 * Nothing here touches the answer before the route has made it: doing so (as `cors()` does for every
 * method) makes Hono build an empty answer first and copy it into the route's, which cost reads a
 * sizeable share of their CPU.
 */
export function responseHeaders(accessLog?: LogLine): MiddlewareHandler<AppEnv> {
  const preflight = cors();
  return async (c, next) => {
    const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    const started = accessLog ? performance.now() : 0;
    c.set('requestId', id);
    const api = isApi(c.req.path);
    if (api && c.req.method === 'OPTIONS') {
      // cors() answers a preflight itself (204) and returns it rather than calling next.
      const answered = await preflight(c, next);
      if (answered) c.res = answered;
    } else await next();
    try {
      setHeaders(c.res.headers, id, api);
    } catch {
      // An answer with immutable headers (a fetched Response passed through): copy it, then set.
      c.res = new Response(c.res.body, c.res);
      setHeaders(c.res.headers, id, api);
    }
    accessLog?.(
      `[${id}] ${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - started).toFixed(0)} ms`,
    );
  };
}

function setHeaders(headers: Headers, id: string, api: boolean): void {
  if (api) headers.set('Access-Control-Allow-Origin', '*');
  for (const [name, value] of SECURITY_HEADERS) headers.set(name, value);
  headers.delete('X-Powered-By');
  headers.set(REQUEST_ID_HEADER, id);
}
