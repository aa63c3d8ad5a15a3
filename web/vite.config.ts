import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress.ts';

/** The Berth server in development (`npm run dev -w @berth/server`). */
const API_PROXY = { '/api': { target: 'http://localhost:8080', changeOrigin: true } };

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), precompress()],
  server: { proxy: API_PROXY },
  preview: { proxy: API_PROXY },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // .vite/manifest.json: which chunks each entry and lazy page needs (the bundle budget reads it).
    manifest: true,
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: separate chunks stay cached across releases. Only
        // what every page needs goes in them: a group takes every matching module, so a group of all of
        // MUI would put the dashboard's dialogs and tables in the first load of /.
        codeSplitting: {
          groups: [
            {
              name: 'react',
              test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/,
              priority: 2,
            },
            {
              name: 'mui-core',
              test: /node_modules[\\/](@emotion[\\/]|@mui[\\/](system|styled-engine|private-theming|utils)[\\/]|@mui[\\/]material[\\/]styles[\\/])/,
              priority: 1,
            },
          ],
        },
      },
    },
  },
});
