// The server-side entry of the public pages (web/prerender.ts bundles it for Node): renders a public
// page to HTML and the Emotion styles it uses, as a whole document. The build writes each page with no
// settings; the Berth server loads the same bundle and writes them with its current settings
// (server/src/lib/public-pages.ts). Never part of the browser's bundle.

import type { Schemas } from '@berth/openapi';
import { THEME_STORAGE_KEY } from '@berth/ui';
import createCache, { type EmotionCache } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router';
import { appElement } from './app-element.tsx';
import { type PageTemplate, pageDocument, type RenderedPage } from './page-document.ts';
import { bootScript } from './prerender-contract.ts';
import { TOKEN_STORAGE_KEY } from './web-platform.ts';

/** The <head> script of every prerendered page, with the localStorage keys the app reads. */
const BOOT_SCRIPT = bootScript({ token: TOKEN_STORAGE_KEY, theme: THEME_STORAGE_KEY });

/** Emotion's class names in the markup are `css-<id>` (the cache key below). */
const CLASS = /css-([a-zA-Z0-9_-]+)/g;

/**
 * The styles of a render as Emotion's server tooling writes them: page-wide styles (CssBaseline,
 * keyframes) one tag each as `css-global <id>`, which the browser's <Global> takes over; the class
 * styles the markup uses in one `css <ids>` tag, which the browser's cache registers as inserted.
 */
function styleTags(cache: EmotionCache, html: string): string {
  const used = new Set(Array.from(html.matchAll(CLASS), (match) => match[1]));
  let globals = '';
  const ids: string[] = [];
  let classes = '';
  for (const [id, rules] of Object.entries(cache.inserted)) {
    if (typeof rules !== 'string') continue;
    if (cache.registered[`${cache.key}-${id}`] === undefined) {
      globals += `<style data-emotion="${cache.key}-global ${id}">${rules}</style>`;
    } else if (used.has(id)) {
      ids.push(id);
      classes += rules;
    }
  }
  return `${globals}<style data-emotion="${cache.key} ${ids.join(' ')}">${classes}</style>`;
}

/**
 * Renders `url` as a signed-out visitor sees it, once every lazy part of it has loaded; with `config`
 * (GET /api/config's answer) what depends on it shows as it will in the browser.
 */
async function renderPage(url: string, config: Schemas['PublicConfig'] | null): Promise<RenderedPage> {
  const cache = createCache({ key: 'css' });
  // Collect the styles in the cache instead of writing <style> tags into the markup.
  cache.compat = true;
  const { prelude } = await prerender(
    <CacheProvider value={cache}>
      {appElement(
        (children) => (
          <StaticRouter location={url}>{children}</StaticRouter>
        ),
        config ?? undefined,
      )}
    </CacheProvider>,
    // Every boundary inline, in place: no part of the page outlined into a later chunk that needs an
    // inline script to move it into place.
    { progressiveChunkSize: Number.POSITIVE_INFINITY },
  );
  const html = await new Response(prelude).text();
  return { html, styles: styleTags(cache, html) };
}

/** The whole document of the page `url` from its template, rendered with `config` (or with none). */
export async function renderDocument(
  template: PageTemplate,
  url: string,
  config: Schemas['PublicConfig'] | null,
): Promise<string> {
  return pageDocument(template, await renderPage(url, config), BOOT_SCRIPT, config);
}
