// How the server hands the built web app to browsers: precompressed copies chosen by Accept-Encoding,
// HTML never cached, hashed assets immutable. Real HTTP requests (node:http, which does not decode
// bodies) against the app on a loopback port, with a dist folder laid out as the web build writes it.

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedEncodings } from '../src/lib/web-app.ts';
import { createTestApp } from './create-test-app.ts';
import { listen } from './listen.ts';
import { createTestDatabase } from './test-db.ts';

const INDEX = `<!doctype html><html><head><title>Berth UI</title></head><body>${'<div></div>'.repeat(200)}</body></html>`;
/** Pages the build prerendered (web/prerender.ts): their markup is in the HTML. */
const LANDING = `<!doctype html><html><body><div id="root"><h1>Deploy</h1>${'<p>landing</p>'.repeat(100)}</div></body></html>`;
const PRICING = `<!doctype html><html><body><div id="root"><h1>Pricing</h1>${'<p>plans</p>'.repeat(100)}</div></body></html>`;
const TERMS = '<!doctype html><html><body><div id="root"><h1>Affiliate terms</h1></div></body></html>';
const SCRIPT = `export const greeting = ${JSON.stringify('hello '.repeat(500))};`;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let server: { url: string; close(): Promise<void> };

function get(route: string, acceptEncoding?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${server.url}${route}`,
      { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

/** The body as the browser reads it, after undoing Content-Encoding. */
function decoded(answer: Answer): string {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body).toString();
  if (encoding === 'gzip') return gunzipSync(answer.body).toString();
  return answer.body.toString();
}

beforeAll(async () => {
  const { db } = await createTestDatabase();
  const dist = await mkdtemp(path.join(tmpdir(), 'berth-dist-'));
  await mkdir(path.join(dist, 'assets'));
  await mkdir(path.join(dist, '.vite'));
  const withCopies = async (file: string, content: string) => {
    await writeFile(file, content);
    await writeFile(`${file}.br`, brotliCompressSync(content));
    await writeFile(`${file}.gz`, gzipSync(content));
  };
  await withCopies(path.join(dist, 'index.html'), INDEX);
  await withCopies(path.join(dist, 'assets', 'index-abc123.js'), SCRIPT);
  await writeFile(path.join(dist, 'assets', 'logo-abc123.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(path.join(dist, '.vite', 'manifest.json'), '{"secret":"build layout"}');
  await mkdir(path.join(dist, 'prerendered', 'affiliate'), { recursive: true });
  await withCopies(path.join(dist, 'prerendered', 'index.html'), LANDING);
  await withCopies(path.join(dist, 'prerendered', 'pricing.html'), PRICING);
  await writeFile(path.join(dist, 'prerendered', 'affiliate', 'terms.html'), TERMS);
  server = await listen(createTestApp(db, { webDistDir: dist }));
});

afterAll(async () => {
  await server?.close();
});

describe('serving the built web app', () => {
  it('sends a browser that accepts brotli the brotli copy of a script, cached for a year', async () => {
    const answer = await get('/assets/index-abc123.js', 'gzip, deflate, br, zstd');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.headers['content-type']).toContain('javascript');
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(SCRIPT.length / 5);
    expect(decoded(answer)).toBe(SCRIPT);
  });

  it('falls back to gzip, and to the plain file when no encoding is accepted', async () => {
    const gzip = await get('/assets/index-abc123.js', 'gzip, deflate');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decoded(gzip)).toBe(SCRIPT);

    const refusedBrotli = await get('/assets/index-abc123.js', 'br;q=0, gzip;q=0.8');
    expect(refusedBrotli.headers['content-encoding']).toBe('gzip');

    for (const accept of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
      const plain = await get('/assets/index-abc123.js', accept);
      expect(plain.headers['content-encoding'], String(accept)).toBeUndefined();
      // The variant still depends on the header: caches must not hand it to a brotli browser blindly.
      expect(plain.headers.vary, String(accept)).toBe('Accept-Encoding');
      expect(plain.body.toString(), String(accept)).toBe(SCRIPT);
    }
  });

  it('answers a prerendered public page with its own HTML, compressed and never cached', async () => {
    for (const [route, html] of [
      ['/', LANDING],
      ['/pricing', PRICING],
      ['/affiliate/terms', TERMS],
    ] as const) {
      const answer = await get(route, 'gzip, deflate, br');
      expect(answer.status, route).toBe(200);
      expect(answer.headers['content-type'], route).toContain('text/html');
      expect(answer.headers['cache-control'], route).toBe('no-cache');
      expect(decoded(answer), route).toBe(html);
    }
    expect((await get('/', 'gzip')).headers['content-encoding']).toBe('gzip');
    // Only the exact path: below it, with a trailing slash or in other letters, the app shell decides.
    for (const route of ['/pricing/', '/pricing/x', '/Pricing', '/affiliate', '/prerendered']) {
      expect(decoded(await get(route, 'br')), route).toBe(INDEX);
    }
  });

  it('answers every other page with index.html, compressed and never cached', async () => {
    for (const route of ['/dashboard', '/login', '/api/docs', '/index.html']) {
      const answer = await get(route, 'gzip, deflate, br');
      expect(answer.status, route).toBe(200);
      expect(answer.headers['content-type'], route).toContain('text/html');
      expect(answer.headers['cache-control'], route).toBe('no-cache');
      expect(answer.headers['content-encoding'], route).toBe('br');
      expect(decoded(answer), route).toBe(INDEX);
    }
    const plain = await get('/login');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(INDEX);
  });

  it('sends files without copies as they are, and keeps the build folder and paths outside dist to itself', async () => {
    const image = await get('/assets/logo-abc123.png', 'gzip, br');
    expect(image.headers['content-encoding']).toBeUndefined();
    expect(image.headers['content-type']).toBe('image/png');
    expect([...image.body]).toEqual([0x89, 0x50, 0x4e, 0x47]);

    for (const route of [
      '/.vite/manifest.json',
      '/assets/%2e%2e/%2e%2e/etc/passwd',
      '/%2e%2e%2fpackage.json',
    ]) {
      const answer = await get(route, 'identity');
      expect(answer.headers['content-type'], route).toContain('text/html');
      expect(answer.body.toString(), route).toBe(INDEX);
    }
  });
});

describe('acceptedEncodings', () => {
  it.each([
    ['gzip, deflate, br', ['br', 'gzip']],
    ['gzip', ['gzip']],
    ['br;q=0.5, gzip', ['gzip', 'br']],
    ['*', ['br', 'gzip']],
    ['*;q=0.1, gzip;q=0', ['br']],
    ['identity', []],
    [undefined, []],
  ] as const)('%s → %j', (header, expected) => {
    expect(acceptedEncodings(header)).toEqual(expected);
  });
});
