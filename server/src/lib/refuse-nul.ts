import type { MiddlewareHandler } from 'hono';
import { ValidationError } from './errors.ts';

/** What a request with a NUL character is told (PostgreSQL's text cannot hold one). */
export const NUL_REFUSED = 'The request contains a NUL character, which no field accepts';

/** Whether a parsed JSON value holds U+0000 in any string, keys included. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).some(([key, inner]) => key.includes('\0') || holdsNul(inner));
  return false;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

/**
 * Refuses, with 400 in the app's error shape, any request whose path, query or body (JSON or form)
 * holds a NUL character: no field of ours takes one, and PostgreSQL refuses it in text ("invalid byte
 * sequence"), which would otherwise surface as a 500 from whichever route passed it on. One check for
 * every route. The body is read as text (cached: the route's own parsing and a webhook's signature
 * check read the same text after it); a body that is not valid JSON is left to the route's validator.
 */
export const refuseNul: MiddlewareHandler = async (c, next) => {
  const { url } = c.req;
  if (url.includes('\0') || /%00/i.test(url)) throw new ValidationError(NUL_REFUSED);
  const type = c.req.header('content-type') ?? '';
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && (JSON_TYPE.test(type) || FORM_TYPE.test(type))) {
    const text = await c.req.text();
    if (text.includes('\0') || (FORM_TYPE.test(type) && /%00/i.test(text)))
      throw new ValidationError(NUL_REFUSED);
    if (JSON_TYPE.test(type) && /\\u0000/i.test(text)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (holdsNul(parsed)) throw new ValidationError(NUL_REFUSED);
    }
  }
  await next();
};
