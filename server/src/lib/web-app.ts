import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Env, Hono } from 'hono';

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Berth</title>
<p>The web app is not built yet. Run <code>npm run build</code> (or <code>npm start</code>, which builds it).</p>`;

const isApi = (p: string) => p === '/api' || p.startsWith('/api/');

/**
 * Serves the built web app: files from `distDir` (hashed assets cached for a year), and index.html for
 * every other GET that is not an API call, so the UI's router (and its Not Found screen) decides what
 * to show. `/api/docs` is a UI page too (spec), so it also gets the app.
 */
export function mountWebApp<E extends Env>(app: Hono<E>, distDir: string): void {
  const indexFile = path.join(distDir, 'index.html');
  const page = () =>
    new Response(existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : NOT_BUILT, {
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
    });
  const files = serveStatic({ root: distDir });

  app.get('/api/docs', page);
  app.get('*', async (c, next) => {
    if (isApi(c.req.path)) return next();
    if (c.req.path !== '/' && existsSync(distDir)) {
      const found = await files(c, async () => {});
      if (found) {
        if (c.req.path.startsWith('/assets/'))
          found.headers.set('cache-control', 'public, max-age=31536000, immutable');
        return found;
      }
    }
    return page();
  });
}
