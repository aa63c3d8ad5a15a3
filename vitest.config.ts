import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// One runner for every package; each project names its files and environment. The browser end-to-end
// suite (web/e2e) is its own project and needs the built web app: `npm test` builds it first.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['server/**/*.test.ts'],
          globalSetup: ['server/test/global-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
      { test: { name: 'openapi', environment: 'node', include: ['openapi/**/*.test.ts'] } },
      { test: { name: 'repo', environment: 'node', include: ['test/**/*.test.ts'] } },
      {
        plugins: [react()],
        test: {
          name: 'ui',
          environment: 'happy-dom',
          include: ['ui/**/*.test.{ts,tsx}'],
          setupFiles: ['ui/test/setup.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'desktop',
          environment: 'node',
          include: ['desktop/test/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['web/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
