import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { ContentEncoding } from './web-app.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Inside the web build: the public pages' renderer and their templates (web/prerender.ts). */
const RENDERER_DIR = '.ssr';

/** The renderer bundle's one export the server uses (web/src/prerender-entry.tsx). */
interface PageRenderer {
  renderDocument(template: unknown, url: string, config: unknown): Promise<string>;
}

/** A rendered page and its compressed copies. */
export interface RenderedDocument {
  identity: Buffer;
  encoded: Record<ContentEncoding, Buffer>;
}

export interface PublicPages {
  /**
   * The public page at `urlPath` rendered with the server's current settings, or undefined when the
   * path is not a public page (or the build has no renderer, or rendering failed: said once in the log).
   */
  page(urlPath: string): Promise<RenderedDocument | undefined>;
}

export interface PublicPagesDeps {
  /** The web build (web/dist). */
  distDir: string;
  /** GET /api/config's answer now: the admin's prices, what this install can deploy. */
  publicConfig(): Promise<unknown>;
  log?: (message: string) => void;
}

async function compressed(html: string): Promise<RenderedDocument> {
  const identity = Buffer.from(html);
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
    gzipAsync(identity, { level: 9 }),
  ]);
  return { identity, encoded: { br, gzip: gz } };
}

/**
 * The public pages (landing, pricing, login, help, legal) rendered by the server with the settings they
 * show, so a visitor reads the admin's prices and what this install offers from the HTML itself, before
 * and without any script. Each page is rendered once per version of the settings (their JSON) and kept;
 * a change of prices shows at the next visit.
 */
export function createPublicPages(deps: PublicPagesDeps): PublicPages | undefined {
  const dir = path.join(path.resolve(deps.distDir), RENDERER_DIR);
  const bundle = path.join(dir, 'render.mjs');
  if (!existsSync(bundle)) return undefined;
  const log = deps.log ?? ((message: string) => console.error(message));
  let loaded: Promise<{ renderer: PageRenderer; templates: Record<string, unknown> }> | undefined;
  let cache: { settings: string; pages: Map<string, Promise<RenderedDocument>> } | undefined;
  let failed = false;

  const load = () => {
    loaded ??= (async () => ({
      renderer: (await import(pathToFileURL(bundle).href)) as PageRenderer,
      templates: JSON.parse(await readFile(path.join(dir, 'pages.json'), 'utf8')) as Record<string, unknown>,
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
          rendered = renderer.renderDocument(template, urlPath, config).then(compressed);
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
  };
}
