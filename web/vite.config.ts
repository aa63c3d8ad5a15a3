import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { muiWithoutCssVariables } from './mui-without-css-variables.ts';
import { precompress } from './precompress.ts';
import { prerenderPages } from './prerender.ts';

/** The Berth server in development (`npm run dev -w @berth/server`). */
const API_PROXY = { '/api': { target: 'http://localhost:8080', changeOrigin: true } };

export default defineConfig({
  root: import.meta.dirname,
  plugins: [muiWithoutCssVariables(), react(), prerenderPages(), precompress()],
  server: { proxy: API_PROXY },
  preview: { proxy: API_PROXY },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // .vite/manifest.json: which chunks each entry and lazy page needs (the bundle budget reads it).
    manifest: true,
    // Scalar's reference (1.6 MB, the largest chunk) loads on /api-reference alone, after the page has
    // painted; what the other pages load is held to its own budget (scripts/bundle-budget.ts).
    chunkSizeWarningLimit: 2_000,
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: a separate chunk stays cached across releases. Only
        // what every page needs goes in one: a group takes every matching module. React and the router
        // are such; MUI's core is not grouped (a group of it put modules only other pages use, such as
        // Grid's generator and the roving tab index, in the first load of /).
        codeSplitting: {
          groups: [
            {
              name: 'react',
              test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/,
              priority: 2,
            },
          ],
        },
      },
    },
  },
});
