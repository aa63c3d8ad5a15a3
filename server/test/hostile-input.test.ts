import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.ts';
import { NUL_REFUSED } from '../src/lib/refuse-nul.ts';
import { call, createTestApp, registerAdmin, type TestApp } from './create-test-app.ts';
import { listen } from './listen.ts';
import { createTestDatabase } from './test-db.ts';

/**
 * Hostile input against every operation of the generated OpenAPI document (openapi/openapi.json): NUL
 * characters, oversized and odd strings, values of the wrong type, in path, query and JSON body, sent
 * as a signed-in admin (and with a Pro API key on /api/v1) so they get past authentication. Every
 * answer is a 4xx (or a success) with the error shape; never a 5xx. Then: answers to requests whose
 * body the route never reads go out only once the body has arrived, so the client sees them.
 */

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema> };
interface Operation {
  parameters?: { name: string; in: 'path' | 'query' | 'header' }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const root = new URL('../../', import.meta.url).pathname;
let db: Db;
let app: TestApp;
let doc: Document;
let token: string;
let apiKey: string;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  // Generous limits: the point is what each route does with the input, not the limiter.
  const plenty = { points: 100_000, windowSeconds: 60 };
  app = createTestApp(db, {
    rateLimits: Object.fromEntries(
      [
        'login',
        'loginAccount',
        'register',
        'passwordReset',
        'passwordResetAccount',
        'contact',
        'helpUpload',
        'helpSubmit',
        'affiliateClick',
        'publicApi',
      ].map((name) => [name, plenty]),
    ),
  });
  doc = JSON.parse(await readFile(`${root}openapi/openapi.json`, 'utf8')) as Document;
  const admin = await registerAdmin(app, db);
  token = admin.token;
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', String(admin.user.id))
    .execute();
  apiKey = (await call(app, 'POST', '/api/keys/generate', { token })).json.apiKey;
});

const resolve = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').pop() ?? '']) : schema;

/** Values a hostile client tries in a string's place (each once). */
const HOSTILE_STRINGS = [
  'a\u0000b',
  'x'.repeat(10_000),
  '\ud800',
  '../../etc/passwd',
  "'; drop table users; --",
  '<script>alert(1)</script>',
];
/** Values of the wrong type, in a field's place. */
const WRONG_TYPES: unknown[] = [1e21, -1, true, null, [], { $gt: '' }];
const PATH_VALUES = ['%00', 'a%00b', 'x'.repeat(2_000), '%F0%9F%92%A9', '-1', '..%2F..', '%27%20or%201%3D1'];

/** The requests of one operation: hostile path values, query values and JSON bodies. */
function* requestsOf(path: string, operation: Operation) {
  const params = operation.parameters ?? [];
  const withPath = (value: string) => path.replace(/\{[^}]+\}/g, () => value) as string;
  const valid = withPath('3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f');
  if (params.some((p) => p.in === 'path')) for (const value of PATH_VALUES) yield { url: withPath(value) };
  const query = params.filter((p) => p.in === 'query');
  for (const value of ['a%00b', encodeURIComponent('x'.repeat(5_000)), '-1', '%FF'])
    if (query.length > 0) yield { url: `${valid}?${query.map((p) => `${p.name}=${value}`).join('&')}` };
  const schema = resolve(operation.requestBody?.content?.['application/json']?.schema);
  if (!schema) return;
  const fields = Object.keys(schema.properties ?? {});
  for (const value of [...HOSTILE_STRINGS, ...WRONG_TYPES])
    yield { url: valid, body: Object.fromEntries(fields.map((field) => [field, value])) };
  yield { url: valid, body: { '\u0000': 'x', [fields[0] ?? 'name']: { nested: 'a\u0000' } } };
  yield { url: valid, raw: '{"name": "unterminated' };
  yield { url: valid, raw: '[1,2,3]' };
}

async function send(method: string, url: string, request: { body?: unknown; raw?: string }) {
  const headers: Record<string, string> = url.startsWith('/api/v1/')
    ? { 'x-api-key': apiKey }
    : { authorization: `Bearer ${token}` };
  const text = request.raw ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
  if (text !== undefined) headers['content-type'] = 'application/json';
  const res = await app.request(url, { method: method.toUpperCase(), headers, body: text });
  const type = res.headers.get('content-type') ?? '';
  const json = type.includes('json') ? ((await res.json()) as Record<string, unknown>) : null;
  if (!json) await res.arrayBuffer();
  return { status: res.status, json };
}

describe('hostile input on every operation of the API', { timeout: 180_000 }, () => {
  it('answers 4xx with the error shape, never 5xx; a NUL anywhere is refused with 400', async () => {
    const failures: string[] = [];
    let sent = 0;
    // Sign-out and password changes last: they would end the session the rest is sent with.
    const last = (path: string) => /logout|change-password|auth\/profile|\/api\/keys/.test(path);
    const operations = Object.entries(doc.paths)
      .filter(([path]) => !path.endsWith('/stream'))
      .sort(([a], [b]) => Number(last(a)) - Number(last(b)));
    for (const [path, methods] of operations) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const request of requestsOf(path, operation)) {
          sent += 1;
          const { status, json } = await send(method, request.url, request);
          const what = `${method.toUpperCase()} ${request.url.slice(0, 80)} ${JSON.stringify(request.body ?? request.raw ?? '').slice(0, 60)}`;
          if (status >= 500) failures.push(`${what} → ${status} ${JSON.stringify(json)}`);
          else if (status >= 400 && (typeof json?.error !== 'string' || typeof json.message !== 'string'))
            failures.push(`${what} → ${status} without the error shape: ${JSON.stringify(json)}`);
          const hasNul =
            /%00/.test(request.url.split('?')[0] ?? '') ||
            /a%00b/.test(request.url) ||
            JSON.stringify(request.body ?? '').includes('\\u0000');
          if (hasNul && status !== 400) failures.push(`${what} → ${status}, not 400 for a NUL`);
          if (
            hasNul &&
            status === 400 &&
            json?.message !== NUL_REFUSED &&
            !request.url.startsWith('/api/v1/')
          )
            failures.push(`${what} → 400 ${json?.message}, not the NUL message`);
        }
      }
    }
    expect(sent).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  });

  it('refuses NUL in the path that used to reach PostgreSQL (the affiliate click) with 400', async () => {
    const res = await app.request('/api/affiliates/track-click/%00', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'validation_error', message: NUL_REFUSED });
  });
});

/**
 * Sends `method path` with a `size`-byte body over a raw socket, in chunks a turn of the event loop
 * apart, and notes whether the first byte of the answer came before the last byte of the body left.
 */
function sendSlowly(
  base: string,
  method: string,
  path: string,
  size: number,
  headers: Record<string, string> = {},
) {
  const { port } = new URL(base);
  return new Promise<{ status: number; early: boolean; error?: string }>((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    let allSent = false;
    let early = false;
    socket.on('data', (chunk) => {
      if (!answer) early = !allSent;
      answer += chunk.toString('latin1');
      if (/\r\n\r\n/.test(answer)) {
        socket.destroy();
        resolve({ status: Number(answer.split(' ')[1]), early });
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, early, error: error.code }));
    socket.on('connect', async () => {
      const head = [
        `${method} ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `Content-Length: ${size}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      for (let sent = 0; sent < size && !socket.destroyed; sent += chunk.length) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        await new Promise<void>((done) => socket.write(part, () => setImmediate(done)));
      }
      allSent = true;
    });
  });
}

describe('answers go out after the request body was read', { timeout: 60_000 }, () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen(app);
  });
  afterAll(() => server?.close());

  it.each([
    ['PUT', '/api/affiliates/referral', 401, 200_000],
    ['GET', '/api/notifications', 401, 200_000],
    ['POST', '/api/no-such-route', 404, 200_000],
    ['POST', '/api/password-reset/reset', 400, 200_000],
    ['POST', '/api/affiliates/track-click/%00', 400, 200_000],
    ['POST', '/api/auth/login', 413, 2_000_000],
  ] as const)(
    '%s %s with a body its route does not read answers %d once the body is in',
    async (method, path, status, size) => {
      const result = await sendSlowly(server.url, method, path, size);
      expect(result).toEqual({ status, early: false });
    },
  );
});
