import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { PRERENDERED_DIR, prerenderedFile } from '@berth/openapi/web-renderer';
import type { Context, Env, Hono } from 'hono';
import { getMimeType } from 'hono/utils/mime';

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Berth</title>
<p>The web app is not built yet. Run <code>npm run build</code> (or <code>npm start</code>, which builds it).</p>`;

const isApi = (p: string) => p === '/api' || p.startsWith('/api/');

/** index.html is checked on every visit, so a new release shows at once. */
const HTML_CACHE = 'no-cache';
/** Files under /assets/ carry a hash of their content in their name: they never change. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

export type ContentEncoding = 'br' | 'gzip';

/** A page the server rendered and its compressed copies. */
export interface RenderedDocument {
  identity: Buffer;
  encoded: Record<ContentEncoding, Buffer>;
}

/** The pages the server renders itself (server-pages.ts), asked before the files of the build. */
export interface ServerPages {
  /**
   * The public page at `urlPath` rendered with the server's current settings, or undefined when the
   * path is not a public page (or the build has no renderer, or rendering failed: said once in the log).
   */
  page(urlPath: string): Promise<RenderedDocument | undefined>;
  /**
   * The signed-in page at `urlPath` rendered for the session in the request's `cookies`, with its data;
   * undefined when the path is not such a page, the cookies hold no valid session, or rendering failed.
   * Never kept: every visit renders anew.
   */
  signedInPage(urlPath: string, cookies: string | undefined): Promise<RenderedDocument | undefined>;
}

/** The copies the build writes next to a file (web/precompress.ts), best first on a tie. */
const COPIES: readonly { encoding: ContentEncoding; suffix: string }[] = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
];

/**
 * The encodings a request accepts, best first: by q-value, then brotli before gzip. `*` stands for any
 * encoding not named; `q=0` refuses one.
 */
export function acceptedEncodings(header: string | undefined): ContentEncoding[] {
  const q = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (encoding: ContentEncoding) => q.get(encoding) ?? q.get('*') ?? 0;
  return COPIES.map((c) => c.encoding)
    .filter((encoding) => weight(encoding) > 0)
    .sort((a, b) => weight(b) - weight(a));
}

async function fileSize(file: string): Promise<number | undefined> {
  try {
    const info = await stat(file);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file `urlPath` names inside `root`, or undefined when it leaves `root` or names a hidden file
 * (the build's .vite/ folder).
 */
function fileIn(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const segments = decoded.split('/').filter(Boolean);
  if (segments.some((segment) => segment.startsWith('.'))) return undefined;
  const file = path.resolve(root, ...segments);
  return file.startsWith(root + path.sep) ? file : undefined;
}

/**
 * Answers with `file`, or with its brotli or gzip copy when the request accepts one (precompressed at
 * build; nothing is compressed per request). Every answer of a file that has copies says
 * `Vary: Accept-Encoding`, so shared caches keep the variants apart.
 */
async function sendFile(c: Context, file: string, cacheControl: string): Promise<Response | undefined> {
  const size = await fileSize(file);
  if (size === undefined) return undefined;
  const headers = new Headers({
    'content-type': getMimeType(file) ?? 'application/octet-stream',
    'cache-control': cacheControl,
  });
  const copies = (
    await Promise.all(COPIES.map(async (copy) => ({ ...copy, size: await fileSize(file + copy.suffix) })))
  ).filter((copy) => copy.size !== undefined);
  let chosen = file;
  if (copies.length > 0) {
    headers.set('vary', 'Accept-Encoding');
    const encoding = acceptedEncodings(c.req.header('accept-encoding')).find((e) =>
      copies.some((copy) => copy.encoding === e),
    );
    const copy = copies.find((candidate) => candidate.encoding === encoding);
    if (copy) {
      headers.set('content-encoding', copy.encoding);
      chosen = file + copy.suffix;
    }
  }
  const body = await readFile(chosen);
  headers.set('content-length', String(body.length));
  return new Response(c.req.method === 'HEAD' ? null : body, { status: 200, headers });
}

/** A page rendered with one visitor's data: no cache, shared or private, keeps it. */
const PERSONAL_HTML_CACHE = 'private, no-store';

/**
 * Answers with a page the server rendered (server-pages.ts), compressed as the request accepts;
 * `personal` when it holds the visitor's own data.
 */
function sendDocument(c: Context, document: RenderedDocument, personal = false): Response {
  const headers = new Headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': personal ? PERSONAL_HTML_CACHE : HTML_CACHE,
    vary: personal ? 'Accept-Encoding, Cookie' : 'Accept-Encoding',
  });
  const encoding = acceptedEncodings(c.req.header('accept-encoding'))[0];
  const body = encoding === undefined ? document.identity : document.encoded[encoding];
  if (encoding !== undefined) headers.set('content-encoding', encoding);
  headers.set('content-length', String(body.length));
  return new Response(c.req.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}

/**
 * The page the web build prerendered for `urlPath` inside `prerenderedRoot` (prerenderedFile: '/' →
 * index.html, '/pricing' → pricing.html), or undefined for a path that cannot name one (a trailing
 * slash, a file name).
 */
function prerenderedFileIn(prerenderedRoot: string, urlPath: string): string | undefined {
  if (urlPath !== '/' && !/^(\/[a-z0-9-]+)+$/.test(urlPath)) return undefined;
  return fileIn(prerenderedRoot, `/${prerenderedFile(urlPath)}`);
}

/**
 * Serves the built web app: files from `distDir` (hashed assets cached for a year, the rest revalidated),
 * in the best precompressed encoding the browser accepts; for every other GET that is not an API call:
 * a signed-in page (the dashboard) as `serverPages` renders it for the session in the request's cookies;
 * else the public page of that path (which paints before any script runs) as `serverPages` renders it
 * with the server's settings, else as the build prerendered it; else index.html, so the UI's router (and
 * its Not Found screen) decides what to show. Pages are never cached. `/api/docs` is a UI page too
 * (spec), so it also gets the app.
 */
export function mountWebApp<E extends Env>(app: Hono<E>, distDir: string, serverPages?: ServerPages): void {
  const root = path.resolve(distDir);
  const indexFile = path.join(root, 'index.html');
  const prerenderedRoot = path.join(root, PRERENDERED_DIR);
  const page = async (c: Context) => {
    const cookies = c.req.header('cookie');
    const personal = cookies === undefined ? undefined : await serverPages?.signedInPage(c.req.path, cookies);
    if (personal) return sendDocument(c, personal, true);
    const rendered = await serverPages?.page(c.req.path);
    if (rendered) return sendDocument(c, rendered);
    const prerendered = prerenderedFileIn(prerenderedRoot, c.req.path);
    return (
      (prerendered === undefined ? undefined : await sendFile(c, prerendered, HTML_CACHE)) ??
      (await sendFile(c, indexFile, HTML_CACHE)) ??
      new Response(NOT_BUILT, {
        headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': HTML_CACHE },
      })
    );
  };

  app.get('/api/docs', page);
  app.get('*', async (c, next) => {
    if (isApi(c.req.path)) return next();
    const file = c.req.path === '/' ? undefined : fileIn(root, c.req.path);
    if (file && file !== indexFile) {
      const cache = c.req.path.startsWith('/assets/') ? ASSET_CACHE : HTML_CACHE;
      const found = await sendFile(c, file, cache);
      if (found) return found;
    }
    return page(c);
  });
}
