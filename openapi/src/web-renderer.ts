// The contract between the web build and the server that serves it, in one copy: where the build leaves
// its prerendered pages and the renderer of its pages, and what the renderer's two functions take and
// answer. web/prerender.ts writes them, web/src/prerender-entry.tsx is the renderer, and the server
// reads them (server/src/lib/web-app.ts, server-pages.ts) through `@berth/openapi/web-renderer`.
// Plain values and types only, no imports: the Vite config and the server load this file in Node.

/** Inside the web build: the public pages as the build rendered them, with no server settings. */
export const PRERENDERED_DIR = 'prerendered';

/**
 * The file of PRERENDERED_DIR that holds the page of `pathname` ('/' → index.html,
 * '/affiliate/terms' → affiliate/terms.html).
 */
export const prerenderedFile = (pathname: string): string =>
  pathname === '/' ? 'index.html' : `${pathname.slice(1)}.html`;

/** Inside the web build: the pages' renderer and their templates. A hidden folder: never served. */
export const RENDERER_DIR = '.ssr';

/** The files of RENDERER_DIR. */
export const RENDERER_FILES = {
  /** The renderer bundle: an ES module whose exports are a PageRenderer. */
  bundle: 'render.mjs',
  /** The public pages' templates: `Record<path, PageTemplate>`. */
  publicPages: 'pages.json',
  /** The templates of the signed-in pages the server renders for each visit: `Record<path, PageTemplate>`. */
  signedInPages: 'signed-in-pages.json',
} as const;

/** index.html without Vite's script tags, and the files they named: one per rendered page. */
export interface PageTemplate {
  shell: string;
  /** The app's entry module. */
  entry: string;
  /** The modules to preload with it: the entry's imports and the page's own chunks. */
  preloads: string[];
  /** Stylesheets the page's markup needs before any script runs (paths from the site root). */
  stylesheets?: string[];
  /**
   * Markup made at build time without React (Scalar's), by the attribute of the empty element of the
   * page that takes it: React renders that element with `dangerouslySetInnerHTML` '' and leaves it.
   */
  fills?: Record<string, string>;
}

/** What the server knows of a visit to a signed-in page. `Config` is GET /api/config's answer. */
export interface SignedInVisit<Config> {
  url: string;
  /** The request's Cookie header. */
  cookies: string | undefined;
  /** Answers an API request in-process (the server's own app), as the browser's fetch would. */
  fetch(request: Request): Promise<Response>;
  /** GET /api/config's answer now. */
  config: Config | null;
}

/** The exports of the renderer bundle. `Config` is GET /api/config's answer. */
export interface PageRenderer<Config> {
  /** The whole document of the public page `url`, rendered with `config` (the build passes none). */
  renderDocument(template: PageTemplate, url: string, config: Config | null): Promise<string>;
  /**
   * The signed-in page of `visit` with its visitor's data, or undefined when it cannot be rendered for
   * them (no valid session in the cookies): the browser renders it then.
   */
  renderSignedInDocument(template: PageTemplate, visit: SignedInVisit<Config>): Promise<string | undefined>;
  /**
   * Markup of a page made without React, for its template (PageTemplate.fills), by the build only (a
   * second or two of work, so never at a visit).
   */
  pageFills(pagePath: string): Promise<Record<string, string>>;
}
