import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type PageRenderer,
  type PageTemplate,
  PRERENDERED_DIR,
  prerenderedFile,
  RENDERER_DIR,
  RENDERER_FILES,
} from '@berth/openapi/web-renderer';
import react from '@vitejs/plugin-react';
import { build, type Plugin } from 'vite';
import { pageTemplate } from './src/page-document.ts';
import { PRERENDERED_PAGES, SIGNED_IN_PAGES } from './src/prerender-contract.ts';

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
  isEntry?: boolean;
}

/** The stylesheets of a lazy module (`module` under ui/src/features/) and of the chunks it imports. */
function stylesheetsOf(manifest: Record<string, ManifestChunk>, module: string): string[] {
  const key = Object.keys(manifest).find((k) => k.endsWith(`/ui/src/features/${module}`));
  if (!key) throw new Error(`the build's manifest has no chunk for ${module}`);
  const sheets = new Set<string>();
  const seen = new Set<string>();
  const collect = (k: string) => {
    const chunk = manifest[k];
    if (!chunk || seen.has(k)) return;
    seen.add(k);
    for (const css of chunk.css ?? []) sheets.add(`/${css}`);
    for (const imported of chunk.imports ?? []) collect(imported);
  };
  collect(key);
  return [...sheets];
}

/** The chunks a lazy page needs beyond the entry's (which index.html preloads already). */
function pageChunks(manifest: Record<string, ManifestChunk>, pageModule: string): string[] {
  const key = Object.keys(manifest).find((k) => k.endsWith(`/ui/src/features/${pageModule}`));
  if (!key) throw new Error(`the build's manifest has no chunk for ${pageModule}`);
  const entryFiles = new Set<string>();
  const collect = (k: string, into: Set<string>) => {
    const chunk = manifest[k];
    if (!chunk || into.has(chunk.file)) return;
    into.add(chunk.file);
    for (const imported of chunk.imports ?? []) collect(imported, into);
  };
  for (const [k, chunk] of Object.entries(manifest)) if (chunk.isEntry) collect(k, entryFiles);
  const files = new Set<string>();
  collect(key, files);
  return [...files].filter((file) => !entryFiles.has(file));
}

/**
 * Vite plugin: after the browser build is written, bundles the public pages' renderer for Node (the same
 * React components) into RENDERER_DIR (`dist/.ssr/`) with each page's template, for the server to render
 * the pages with its current settings and a signed-in visitor's data (@berth/openapi/web-renderer), and
 * renders the pages of PRERENDERED_PAGES into PRERENDERED_DIR (`dist/prerendered/`) with no server settings: what the server answers when it
 * cannot render them with its own. They paint before any script runs; the app starts when someone uses
 * the page and hydrates them (main.tsx). Runs in writeBundle, before the precompress plugin's
 * closeBundle compresses every file.
 */
export function prerenderPages(): Plugin {
  let root = '';
  let outDir = '';
  return {
    name: 'berth:prerender',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle() {
      const serverDir = path.join(outDir, RENDERER_DIR);
      await build({
        configFile: false,
        root,
        logLevel: 'warn',
        plugins: [react()],
        define: { 'process.env.NODE_ENV': JSON.stringify('production') },
        publicDir: false,
        // Self-contained (the packages load the way the browser build loads them), and split where the
        // app loads lazily, so the server loads only what the public pages need.
        ssr: { noExternal: true },
        build: {
          ssr: path.join(root, 'src/prerender-entry.tsx'),
          outDir: serverDir,
          emptyOutDir: true,
          rolldownOptions: {
            output: { entryFileNames: RENDERER_FILES.bundle, chunkFileNames: 'chunks/[name]-[hash].mjs' },
          },
        },
      });
      const { renderDocument, pageFills } = (await import(
        pathToFileURL(path.join(serverDir, RENDERER_FILES.bundle)).href
      )) as PageRenderer<null>;
      const shell = await readFile(path.join(outDir, 'index.html'), 'utf8');
      const manifest = JSON.parse(await readFile(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Record<
        string,
        ManifestChunk
      >;
      const templateOf = (module: string) =>
        pageTemplate(
          shell,
          pageChunks(manifest, module).map((file) => `/${file}`),
        );
      const templates: Record<string, PageTemplate> = {};
      for (const { path: pagePath, module, styles } of PRERENDERED_PAGES) {
        const fills = await pageFills(pagePath);
        const template = {
          ...templateOf(module),
          ...(styles ? { stylesheets: stylesheetsOf(manifest, styles) } : {}),
          ...(Object.keys(fills).length > 0 ? { fills } : {}),
        };
        templates[pagePath] = template;
        const file = path.join(outDir, PRERENDERED_DIR, prerenderedFile(pagePath));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, await renderDocument(template, pagePath, null));
      }
      await writeFile(path.join(serverDir, RENDERER_FILES.publicPages), JSON.stringify(templates));
      const signedIn = Object.fromEntries(
        SIGNED_IN_PAGES.map(({ path: pagePath, module }) => [pagePath, templateOf(module)]),
      );
      await writeFile(path.join(serverDir, RENDERER_FILES.signedInPages), JSON.stringify(signedIn));
      this.info(`prerendered ${PRERENDERED_PAGES.length} public pages`);
    },
  };
}
