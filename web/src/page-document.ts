// A prerendered public page as one HTML document: index.html as Vite built it, with the page's markup in
// #root and, in the <head>, its styles, the boot script, the settings it was rendered with and the
// script that starts the app. The build writes the pages with no settings (web/prerender.ts); the server
// writes them with its current ones (server/src/lib/server-pages.ts), through the same function.
// Plain values only: the Vite config loads this file in Node.

import type { PageTemplate } from '@berth/openapi/web-renderer';
import {
  CLIENT_RENDER_STYLE,
  PRERENDERED_ATTRIBUTE,
  PRERENDERED_SCHEME,
  PUBLIC_CONFIG_ELEMENT_ID,
  SERVER_RENDER_ELEMENT_ID,
  SESSION_ATTRIBUTE,
  startScript,
} from './prerender-contract.ts';

/** What renderPage returns (prerender-entry.tsx). */
export interface RenderedPage {
  /** The markup of #root. */
  html: string;
  /** <style> tags for the <head>, in the form Emotion in the browser picks up instead of inserting again. */
  styles: string;
}

const ENTRY_SCRIPT = /<script type="module" crossorigin src="([^"]+)"><\/script>\s*/;
const PRELOAD_LINK = /<link rel="modulepreload" crossorigin href="([^"]+)">\s*/g;

/** The template of a page from the built index.html and the page's own chunks (paths from the site root). */
export function pageTemplate(indexHtml: string, pageChunks: readonly string[]): PageTemplate {
  const entry = ENTRY_SCRIPT.exec(indexHtml)?.[1];
  if (!entry) throw new Error('index.html has no <script type="module"> to start the app');
  const preloads = Array.from(indexHtml.matchAll(PRELOAD_LINK), (match) => match[1] ?? '');
  const shell = indexHtml.replace(ENTRY_SCRIPT, '').replace(PRELOAD_LINK, '');
  return { shell, entry, preloads: [...preloads, ...pageChunks] };
}

/** `html` with each fill's markup inside the empty element carrying its attribute. */
function filled(html: string, fills: Record<string, string> = {}): string {
  let result = html;
  for (const [attribute, markup] of Object.entries(fills)) {
    const empty = new RegExp(`(<div [^>]*\\b${attribute}=""[^>]*>)(</div>)`);
    if (!empty.test(result)) throw new Error(`the page has no empty element with ${attribute} to fill`);
    result = result.replace(empty, (_all, open: string, close: string) => `${open}${markup}${close}`);
  }
  return result;
}

/** JSON inside <script>: `<` escaped, so no value can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const jsonElement = (id: string, value: unknown) =>
  `<script type="application/json" id="${id}">${scriptJson(value)}</script>`;

/**
 * The whole document of a page; `config` is GET /api/config's answer it was rendered with, if any.
 * A public page starts the app when a person shows up (startScript). A signed-in page (`signedIn`: the
 * data and clock it was rendered with, and the session it was rendered for) starts it as soon as it has
 * painted.
 */
export function pageDocument(
  template: PageTemplate,
  page: RenderedPage,
  bootScript: string,
  config: unknown | null,
  signedIn?: { serverRender: unknown; sessionTag: string },
): string {
  const serverRender = signedIn?.serverRender;
  const start =
    serverRender === undefined
      ? `<script>${startScript(template.entry, template.preloads)}</script>`
      : `${jsonElement(SERVER_RENDER_ELEMENT_ID, serverRender)}<script>${startScript(template.entry, template.preloads, true)}</script>`;
  const head = [
    // First: the page's own styles (Emotion's, below) come later and win over a stylesheet's page-wide rules.
    ...(template.stylesheets ?? []).map((href) => `<link rel="stylesheet" crossorigin href="${href}">`),
    page.styles,
    `<style>${CLIENT_RENDER_STYLE}</style>`,
    `<script>${bootScript}</script>`,
    config === null ? '' : jsonElement(PUBLIC_CONFIG_ELEMENT_ID, config),
    start,
  ].join('');
  const withScheme = template.shell.replace(
    '<html lang="en">',
    `<html lang="en" ${PRERENDERED_ATTRIBUTE}="${PRERENDERED_SCHEME}"${
      signedIn ? ` ${SESSION_ATTRIBUTE}="${signedIn.sessionTag.replace(/[^\w.-]/g, '')}"` : ''
    }>`,
  );
  const withHead = withScheme.replace('</head>', `${head}</head>`);
  const html = withHead.replace(
    '<div id="root"></div>',
    () => `<div id="root">${filled(page.html, template.fills)}</div>`,
  );
  if (html === withHead || withScheme === template.shell)
    throw new Error('index.html lost its <html lang="en"> or #root');
  return html;
}
