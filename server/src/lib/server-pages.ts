import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import {
  type PageRenderer,
  type PageTemplate,
  RENDERER_DIR,
  RENDERER_FILES,
} from '@berth/openapi/web-renderer';
import type { RenderedDocument, ServerPages } from './web-app.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** `Config` is GET /api/config's answer, which the renderer renders the pages with. */
export interface ServerPagesDeps<Config> {
  /** The web build (web/dist). */
  distDir: string;
  /** GET /api/config's answer now: the admin's prices, what this install can deploy. */
  publicConfig(): Promise<Config>;
  /**
   * Answers an API request in-process (the app's own routes): a signed-in page's render calls the API
   * with the session's token, through the same checks as the browser's calls.
   */
  fetch(request: Request): Promise<Response>;
  /** Signed-in renders at most in progress at once (MAX_SIGNED_IN_RENDERS). */
  maxSignedInRenders?: number;
  log?: (message: string) => void;
}

/**
 * Signed-in pages rendered at once, at most: each render takes the event loop for a few tens of ms, so
 * a visit beyond them gets the page rendered by the browser instead of waiting.
 */
const MAX_SIGNED_IN_RENDERS = 2;

/** Compression of a page kept for every visitor (the best), and of one rendered per visit (fast). */
const KEPT = { brotli: 9, gzip: 9 };
const PER_VISIT = { brotli: 5, gzip: 6 };

async function compressed(html: string, level: typeof KEPT): Promise<RenderedDocument> {
  const identity = Buffer.from(html);
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: level.brotli } }),
    gzipAsync(identity, { level: level.gzip }),
  ]);
  return { identity, encoded: { br, gzip: gz } };
}

/**
 * The pages the server renders. The public pages (landing, pricing, login, help, legal) with the
 * settings they show, so a visitor reads the admin's prices and what this install offers from the HTML
 * itself, before and without any script: each is rendered once per version of the settings (their
 * JSON) and kept; a change of prices shows at the next visit. The signed-in pages (the dashboard) for
 * each visit, with the visitor's data, so they paint before the app's code arrives.
 */
export function createServerPages<Config>(deps: ServerPagesDeps<Config>): ServerPages | undefined {
  const dir = path.join(path.resolve(deps.distDir), RENDERER_DIR);
  const bundle = path.join(dir, RENDERER_FILES.bundle);
  if (!existsSync(bundle)) return undefined;
  const log = deps.log ?? ((message: string) => console.error(message));
  let loaded:
    | Promise<{
        renderer: PageRenderer<Config>;
        templates: Record<string, PageTemplate>;
        signedInTemplates: Record<string, PageTemplate>;
      }>
    | undefined;
  let cache: { settings: string; pages: Map<string, Promise<RenderedDocument>> } | undefined;
  let failed = false;
  let signedInFailed = false;
  let rendering = 0;
  const maxRenders = deps.maxSignedInRenders ?? MAX_SIGNED_IN_RENDERS;

  const templatesIn = async (file: string) =>
    JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Record<string, PageTemplate>;
  const load = () => {
    loaded ??= (async () => ({
      // The bundle the web build wrote: its exports are the contract's PageRenderer.
      renderer: (await import(pathToFileURL(bundle).href)) as PageRenderer<Config>,
      templates: await templatesIn(RENDERER_FILES.publicPages),
      signedInTemplates: await templatesIn(RENDERER_FILES.signedInPages),
    }))();
    return loaded;
  };

  return {
    async page(urlPath) {
      try {
        const { renderer, templates } = await load();
        const template = Object.hasOwn(templates, urlPath) ? templates[urlPath] : undefined;
        if (template === undefined) return undefined;
        const config = await deps.publicConfig();
        const settings = JSON.stringify(config);
        if (cache?.settings !== settings) cache = { settings, pages: new Map() };
        let rendered = cache.pages.get(urlPath);
        if (!rendered) {
          const pages = cache.pages;
          rendered = renderer
            .renderDocument(template, urlPath, config)
            .then((html) => compressed(html, KEPT));
          pages.set(urlPath, rendered);
          // A failed render is tried again by the next visit.
          rendered.catch(() => pages.delete(urlPath));
        }
        return await rendered;
      } catch (error) {
        if (!failed) log(`[berth] public pages are served as built, without settings: ${String(error)}`);
        failed = true;
        return undefined;
      }
    },
    async signedInPage(urlPath, cookies) {
      let counted = false;
      try {
        const { renderer, signedInTemplates } = await load();
        const template = Object.hasOwn(signedInTemplates, urlPath) ? signedInTemplates[urlPath] : undefined;
        // Busy: the browser renders this one (the app is the same), so page renders never pile up on
        // the event loop the API shares, however many visits come at once.
        if (template === undefined || rendering >= maxRenders) return undefined;
        rendering += 1;
        counted = true;
        const html = await renderer.renderSignedInDocument(template, {
          url: urlPath,
          cookies,
          fetch: deps.fetch,
          config: await deps.publicConfig(),
        });
        return html === undefined ? undefined : await compressed(html, PER_VISIT);
      } catch (error) {
        // The app renders the page in the browser instead, as it does for a visitor with no cookie.
        if (!signedInFailed) log(`[berth] signed-in pages render in the browser: ${String(error)}`);
        signedInFailed = true;
        return undefined;
      } finally {
        if (counted) rendering -= 1;
      }
    },
  };
}
