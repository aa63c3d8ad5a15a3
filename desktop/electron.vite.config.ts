import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

/**
 * In `electron-vite dev` only: @vitejs/plugin-react injects an inline Fast Refresh preamble and Vite's HMR client
 * uses a WebSocket, which the strict CSP in index.html would block. Built output keeps the strict policy.
 */
function relaxCspForDevServer(): Plugin {
  return {
    name: 'berth:relax-csp-for-dev-server',
    apply: 'serve',
    transformIndexHtml: {
      order: 'pre',
      handler: (html) =>
        html
          .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
          .replace("connect-src 'self'", "connect-src 'self' ws:"),
    },
  };
}

export default defineConfig({
  // src/main/index.ts → out/main/index.js (ESM). Dependencies (keyring native addon, electron-store) stay
  // external and load from node_modules at run time.
  main: {
    build: { externalizeDeps: true },
  },
  // src/preload/index.ts → out/preload/index.cjs. A sandboxed preload cannot load ES modules and can only
  // require('electron'), so it is one self-contained CommonJS file.
  preload: {
    build: {
      externalizeDeps: false,
      rolldownOptions: { output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  // src/renderer/index.html → out/renderer. A browser build: everything is bundled, including the workspace
  // packages @berth/ui and @berth/openapi, which export TypeScript sources.
  renderer: {
    root: 'src/renderer',
    plugins: [react(), relaxCspForDevServer()],
  },
});
