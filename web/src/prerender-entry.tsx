// The server-side entry of the rendered pages (web/prerender.ts bundles it for Node): renders a page to
// HTML and the Emotion styles it uses, as a whole document. The public pages: the build writes each with
// no settings; the Berth server loads the same bundle and writes them with its current settings. The
// signed-in pages (SIGNED_IN_PAGES): the server renders them for each visit with the visitor's data
// (server/src/lib/server-pages.ts). Never part of the browser's bundle.

import type { Schemas } from '@berth/openapi';
import type { PageRenderer } from '@berth/openapi/web-renderer';
import {
  authKeys,
  type Platform,
  type ServerRenderInfo,
  type ServerRenderState,
  THEME_STORAGE_KEY,
} from '@berth/ui';
import { createQueryClient } from '@berth/ui/query-client';
import createCache, { type EmotionCache } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { dehydrate } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router';
import { appElement } from './app-element.tsx';
import { pageDocument, type RenderedPage } from './page-document.ts';
import {
  bootScript,
  INTL_COOKIE,
  PRERENDERED_SCHEME,
  SESSION_COOKIE,
  sessionTag,
} from './prerender-contract.ts';
import { TOKEN_STORAGE_KEY, webPlatform } from './web-platform.ts';

/** The <head> scripts of the pages, with the localStorage keys the app reads. */
const STORAGE_KEYS = { token: TOKEN_STORAGE_KEY, theme: THEME_STORAGE_KEY };
const PUBLIC_BOOT_SCRIPT = bootScript(STORAGE_KEYS, false);
const SIGNED_IN_BOOT_SCRIPT = bootScript(STORAGE_KEYS, true);

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

/** Renders `app` to its markup and the Emotion styles it uses, once every lazy part of it has loaded. */
async function renderElement(app: ReactNode): Promise<RenderedPage> {
  const cache = createCache({ key: 'css' });
  // Collect the styles in the cache instead of writing <style> tags into the markup.
  cache.compat = true;
  const { prelude } = await prerender(
    <CacheProvider value={cache}>{app}</CacheProvider>,
    // Every boundary inline, in place: no part of the page outlined into a later chunk that needs an
    // inline script to move it into place.
    { progressiveChunkSize: Number.POSITIVE_INFINITY },
  );
  const html = await new Response(prelude).text();
  return { html, styles: styleTags(cache, html) };
}

const staticRouter = (url: string) => (children: ReactNode) => (
  <StaticRouter location={url}>{children}</StaticRouter>
);

/** This bundle's exports, as the contract with the server names them (@berth/openapi/web-renderer). */
type Renderer = PageRenderer<Schemas['PublicConfig']>;

/** The whole document of the page `url` from its template, rendered with `config` (or with none). */
export const renderDocument: Renderer['renderDocument'] = async (template, url, config) => {
  const page = await renderElement(appElement(staticRouter(url), { publicConfig: config ?? undefined }));
  return pageDocument(template, page, PUBLIC_BOOT_SCRIPT, config);
};

/**
 * Markup of a page made without React, for its template (PageTemplate.fills), by the build only:
 * /api-reference holds Scalar's rendering of the public API (a second or two of work, so never at a
 * visit), in the colour scheme pages are prerendered in.
 */
export const pageFills: Renderer['pageFills'] = async (pagePath) => {
  if (pagePath !== '/api-reference') return {};
  const { renderScalarMarkup, SCALAR_MOUNT_ATTRIBUTE } = await import('@berth/ui/api-reference-markup');
  const fills: Record<string, string> = {};
  fills[SCALAR_MOUNT_ATTRIBUTE] = await renderScalarMarkup(PRERENDERED_SCHEME);
  return fills;
};

/** Renders of a page that discover queries, before the last: the dashboard needs three. */
const MAX_DISCOVERY_RENDERS = 4;
/** How long a signed-in page's render may wait for its data in all before it gives up. */
const DATA_BUDGET_MS = 3000;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());
/** The origin of the API requests the render makes; `fetch` answers them in-process. */
const RENDER_ORIGIN = 'http://berth.render';

function cookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [key = '', ...value] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return null;
    }
  }
  return null;
}

/** The locale and time zone of INTL_COOKIE, or null when it is missing or names ones this runtime lacks. */
function intlOf(value: string | null): { locale: string; timeZone: string } | null {
  const [locale, timeZone, ...rest] = (value ?? '').split('|');
  if (!locale || !timeZone || rest.length > 0) return null;
  try {
    const resolved = new Intl.DateTimeFormat(locale, { timeZone }).resolvedOptions();
    return resolved.locale === locale && resolved.timeZone === timeZone ? { locale, timeZone } : null;
  } catch {
    return null;
  }
}

/**
 * The page `visit.url` as its signed-in visitor sees it, with their data: the document, or undefined
 * when the server cannot render it (no valid session in the cookies, no locale). The render calls the
 * API in-process with the session's token, through the same routes and checks as the browser's calls:
 * it renders the page, fetches the queries the render asked for, and renders again until no new query
 * shows; the last render starts from the data alone, as the browser's hydration will.
 */
export const renderSignedInDocument: Renderer['renderSignedInDocument'] = async (template, visit) => {
  const token = cookie(visit.cookies, SESSION_COOKIE);
  const intl = intlOf(cookie(visit.cookies, INTL_COOKIE));
  if (!token || !intl) return undefined;
  const fetch = (request: Request) => visit.fetch(request);
  const profile = await fetch(
    new Request(`${RENDER_ORIGIN}/api/auth/profile`, { headers: { authorization: `Bearer ${token}` } }),
  );
  if (!profile.ok) return undefined;
  const { user } = (await profile.json()) as { user: unknown };

  const platform: Platform = {
    ...webPlatform,
    apiBaseUrl: RENDER_ORIGIN,
    fetch,
    tokenStore: {
      get: async () => token,
      peek: () => token,
      getRefreshToken: async () => null,
      set: async () => {},
      clear: async () => {},
    },
  };
  const config = visit.config ?? undefined;
  const info: ServerRenderInfo = { renderedAt: Date.now(), ...intl };
  const client = createQueryClient({ publicConfig: config });
  client.setQueryData(authKeys.profile(), user);
  const asked = new Set<string>();
  const deadline = Date.now() + DATA_BUDGET_MS;
  for (let pass = 0; pass < MAX_DISCOVERY_RENDERS; pass++) {
    await renderElement(
      appElement(staticRouter(visit.url), {
        platform,
        publicConfig: config,
        serverRender: { info, queries: { queries: [], mutations: [] } },
        queryClient: client,
      }),
    );
    const waiting = client
      .getQueryCache()
      .getAll()
      .filter(
        (query) =>
          query.state.status === 'pending' &&
          !asked.has(query.queryHash) &&
          (query.options as { enabled?: unknown }).enabled !== false,
      );
    if (waiting.length === 0) break;
    for (const query of waiting) asked.add(query.queryHash);
    const fetched = Promise.allSettled(waiting.map((query) => query.fetch())).then(() => true);
    const left = deadline - Date.now();
    // A slow answer must not hold the visitor's page: the browser renders it instead.
    if (left <= 0 || !(await Promise.race([fetched, delay(left).then(() => false)]))) return undefined;
  }
  // What the browser hydrates with: the queries that succeeded (a failed one loads again there).
  const serverRender: ServerRenderState = { info, queries: dehydrate(client) };
  const page = await renderElement(
    appElement(staticRouter(visit.url), { platform, publicConfig: config, serverRender }),
  );
  return pageDocument(template, page, SIGNED_IN_BOOT_SCRIPT, visit.config, {
    serverRender,
    sessionTag: sessionTag(token),
  });
};
