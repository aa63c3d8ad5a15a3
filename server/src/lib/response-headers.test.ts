import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from './app-env.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { responseHeaders } from './response-headers.ts';

/**
 * responseHeaders() replaced three middlewares (request ids, Hono's secureHeaders without
 * Cross-Origin-Resource-Policy, and Hono's cors() on /api/*) for speed. The answers must not change: the
 * same routes behind the old stack and behind the new one answer with the same status, headers and body.
 */

/** The request-id middleware as it was (id header set before the route, again after when missing). */
const oldRequestIds: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
  c.set('requestId', id);
  c.header(REQUEST_ID_HEADER, id);
  await next();
  if (c.res.headers.get(REQUEST_ID_HEADER) !== id) {
    try {
      c.res.headers.set(REQUEST_ID_HEADER, id);
    } catch {
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(REQUEST_ID_HEADER, id);
    }
  }
};

function withRoutes(app: Hono<AppEnv>) {
  app.onError((err, c) => c.json({ error: 'internal', message: err.message, id: c.var.requestId }, 500));
  app.notFound((c) => c.json({ error: 'not_found', message: 'Not found' }, 404));
  return app
    .get('/api/json', (c) => c.json({ ok: true, id: c.var.requestId }))
    .post('/api/json', async (c) => c.json({ got: await c.req.json() }, 201))
    .get('/api/own-headers', (c) =>
      c.json({ ok: true }, 200, { 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-store' }),
    )
    .get(
      '/api/raw',
      () => new Response('raw', { headers: { 'x-powered-by': 'me', 'content-type': 'text/x' } }),
    )
    .get('/api/bytes', (c) => c.body(new Uint8Array([1, 2, 3]), 200, { 'content-type': 'image/png' }))
    .get('/api/throws', () => {
      throw new Error('boom');
    })
    .get('/api/redirect', (c) => c.redirect('/elsewhere', 302))
    .get('/page', () => new Response('<p>page</p>', { headers: { 'content-type': 'text/html' } }))
    .get('/page-json', (c) => c.json({ page: true }));
}

function oldApp() {
  const app = new Hono<AppEnv>();
  app.use('*', oldRequestIds);
  app.use('*', secureHeaders({ crossOriginResourcePolicy: false }));
  app.use('/api/*', cors());
  return withRoutes(app);
}

function newApp() {
  const app = new Hono<AppEnv>();
  app.use('*', responseHeaders());
  return withRoutes(app);
}

const REQUESTS: { path: string; init?: RequestInit }[] = [
  { path: '/api/json' },
  { path: '/api/json', init: { headers: { origin: 'https://elsewhere.example' } } },
  { path: '/api/json', init: { method: 'HEAD' } },
  {
    path: '/api/json',
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
  },
  { path: '/api/own-headers' },
  { path: '/api/raw' },
  { path: '/api/bytes' },
  { path: '/api/throws' },
  { path: '/api/redirect' },
  { path: '/api/nothing-here' },
  { path: '/api' },
  { path: '/page' },
  { path: '/page-json' },
  { path: '/nothing-here' },
  {
    path: '/api/json',
    init: {
      method: 'OPTIONS',
      headers: {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Content-Type, Authorization',
      },
    },
  },
  { path: '/api/json', init: { method: 'OPTIONS' } },
  { path: '/page', init: { method: 'OPTIONS' } },
];

async function answer(app: Hono<AppEnv>, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set(REQUEST_ID_HEADER, 'fixed-request-id');
  const res = await app.request(path, { ...init, headers });
  return { status: res.status, headers: [...res.headers], body: await res.text() };
}

describe('responseHeaders', () => {
  it('answers exactly as request ids + secureHeaders + cors did', async () => {
    const before = oldApp();
    const after = newApp();
    for (const { path, init } of REQUESTS) {
      const label = `${init?.method ?? 'GET'} ${path}`;
      const expected = await answer(before, path, init);
      expect(await answer(after, path, init), label).toEqual(expected);
    }
  });

  it('sets the security headers, the request id and, on /api/*, CORS for any origin', async () => {
    const app = newApp();
    const api = await app.request('/api/json', { headers: { origin: 'https://elsewhere.example' } });
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
    expect(api.headers.get('strict-transport-security')).toBe('max-age=15552000; includeSubDomains');
    expect(api.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(api.headers.get('cross-origin-resource-policy')).toBeNull();
    expect(api.headers.get(REQUEST_ID_HEADER)).toMatch(/^[0-9a-f]{12}$/);
    const page = await app.request('/page');
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-powered-by')).toBeNull();
  });

  it('writes one access-log line per request with its id', async () => {
    const lines: string[] = [];
    const app = new Hono<AppEnv>();
    app.use(
      '*',
      responseHeaders((line) => lines.push(line)),
    );
    app.get('/api/json', (c) => c.json({ ok: true }));
    await app.request('/api/json', { headers: { [REQUEST_ID_HEADER]: 'fixed-request-id' } });
    expect(lines).toEqual([expect.stringMatching(/^\[fixed-request-id\] GET \/api\/json 200 \d+ ms$/)]);
  });
});
