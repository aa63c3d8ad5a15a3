import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import react from '@vitejs/plugin-react';
import { build, type Plugin } from 'vite';
import {
  CLIENT_RENDER_STYLE,
  PRERENDERED_ATTRIBUTE,
  PRERENDERED_PAGES,
  PRERENDERED_SCHEME,
  prerenderedFile,
} from './src/prerender-contract.ts';

/** What the server-side bundle's renderPage returns (src/prerender-entry.tsx). */
interface RenderedPage {
  html: string;
  styles: string;
}

/** Where the pages go inside the build's output; the server looks there first (server/src/lib/web-app.ts). */
export const PRERENDERED_DIR = 'prerendered';

interface ManifestChunk {
  file: string;
  imports?: string[];
  isEntry?: boolean;
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

/** index.html with the page's markup in #root and its styles, boot script and chunks in the <head>. */
function pageHtml(shell: string, page: RenderedPage, bootScript: string, chunks: readonly string[]): string {
  const head = [
    page.styles,
    `<style>${CLIENT_RENDER_STYLE}</style>`,
    `<script>${bootScript}</script>`,
    ...chunks.map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`),
  ].join('');
  const withScheme = shell.replace(
    '<html lang="en">',
    `<html lang="en" ${PRERENDERED_ATTRIBUTE}="${PRERENDERED_SCHEME}">`,
  );
  const withHead = withScheme.replace('</head>', `${head}</head>`);
  const html = withHead.replace('<div id="root"></div>', `<div id="root">${page.html}</div>`);
  if (html === withHead || withScheme === shell)
    throw new Error('index.html lost its <html lang="en"> or #root');
  return html;
}

/**
 * Vite plugin: after the browser build is written, renders the public pages of PRERENDERED_PAGES with
 * the same React components (bundled once more for Node) into `dist/prerendered/`, so they paint before
 * any script runs and then hydrate (main.tsx). Runs in writeBundle, before the precompress plugin's
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
      const serverDir = path.join(root, 'node_modules/.berth-prerender');
      await build({
        configFile: false,
        root,
        logLevel: 'warn',
        plugins: [react()],
        define: { 'process.env.NODE_ENV': JSON.stringify('production') },
        // One self-contained file: the packages load the way the browser build loads them.
        ssr: { noExternal: true },
        build: {
          ssr: path.join(root, 'src/prerender-entry.tsx'),
          outDir: serverDir,
          emptyOutDir: true,
          rolldownOptions: { output: { entryFileNames: 'prerender-entry.mjs', codeSplitting: false } },
        },
      });
      const { renderPage, BOOT_SCRIPT } = (await import(
        pathToFileURL(path.join(serverDir, 'prerender-entry.mjs')).href
      )) as { renderPage(url: string): Promise<RenderedPage>; BOOT_SCRIPT: string };
      const shell = await readFile(path.join(outDir, 'index.html'), 'utf8');
      const manifest = JSON.parse(await readFile(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Record<
        string,
        ManifestChunk
      >;
      for (const { path: pagePath, module } of PRERENDERED_PAGES) {
        const page = await renderPage(pagePath);
        const file = path.join(outDir, PRERENDERED_DIR, prerenderedFile(pagePath));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, pageHtml(shell, page, BOOT_SCRIPT, pageChunks(manifest, module)));
      }
      await rm(serverDir, { recursive: true, force: true });
      this.info(`prerendered ${PRERENDERED_PAGES.length} public pages`);
    },
  };
}
