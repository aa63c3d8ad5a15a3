import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './create-router.ts';
import { type LogLine, newReference } from './error-reference.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept only when it is a short token that cannot forge log lines or headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{5,63}$/;

/** The request's id: the caller's X-Request-Id when it is a safe short token, else a fresh one. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming !== undefined && SAFE_REQUEST_ID.test(incoming) ? incoming : newReference();
}

/**
 * Gives every request an id (`c.var.requestId`, the X-Request-Id answer header, the reference of its
 * errors) and, with `accessLog`, writes one line per request: id, method, path, status, duration.
 */
export function requestIds(accessLog?: LogLine): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    const started = performance.now();
    c.set('requestId', id);
    c.header(REQUEST_ID_HEADER, id);
    await next();
    // Answers made outside c (a static file, an error answer) get the header too.
    if (c.res.headers.get(REQUEST_ID_HEADER) !== id) {
      try {
        c.res.headers.set(REQUEST_ID_HEADER, id);
      } catch {
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set(REQUEST_ID_HEADER, id);
      }
    }
    accessLog?.(
      `[${id}] ${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - started).toFixed(0)} ms`,
    );
  };
}
