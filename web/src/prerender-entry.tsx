// The server-side entry of the build's prerender step (web/prerender.ts bundles it for Node): renders a
// public page to HTML and the Emotion styles it uses. Never part of the browser's bundle.

import { THEME_STORAGE_KEY } from '@berth/ui';
import createCache, { type EmotionCache } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router';
import { appElement } from './app-element.tsx';
import { bootScript } from './prerender-contract.ts';
import { TOKEN_STORAGE_KEY } from './web-platform.ts';

/** The <head> script of every prerendered page, with the localStorage keys the app reads. */
export const BOOT_SCRIPT = bootScript({ token: TOKEN_STORAGE_KEY, theme: THEME_STORAGE_KEY });

export interface RenderedPage {
  /** The markup of #root. */
  html: string;
  /** <style> tags for the <head>, in the form Emotion in the browser picks up instead of inserting again. */
  styles: string;
}

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

/** Renders `url` as a signed-out visitor sees it, once every lazy part of it has loaded. */
export async function renderPage(url: string): Promise<RenderedPage> {
  const cache = createCache({ key: 'css' });
  // Collect the styles in the cache instead of writing <style> tags into the markup.
  cache.compat = true;
  const { prelude } = await prerender(
    <CacheProvider value={cache}>
      {appElement((children) => (
        <StaticRouter location={url}>{children}</StaticRouter>
      ))}
    </CacheProvider>,
    // Every boundary inline, in place: no part of the page outlined into a later chunk that needs an
    // inline script to move it into place.
    { progressiveChunkSize: Number.POSITIVE_INFINITY },
  );
  const html = await new Response(prelude).text();
  return { html, styles: styleTags(cache, html) };
}
