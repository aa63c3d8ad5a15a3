import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the PostgreSQL server the tests create their databases on. */
    pgAdminUrl: string;
  }
}

/**
 * One real PostgreSQL for the whole run: TEST_DATABASE_URL when given (a superuser URL of an existing
 * server), otherwise an embedded PostgreSQL in a fresh directory, removed afterwards. Each test file
 * then creates its own database on it (see test-db.ts).
 */
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide('pgAdminUrl', external);
    return;
  }
  // Directly under the system temp dir: as root, PostgreSQL runs as `postgres` and must reach it.
  const dir = path.join(tmpdir(), `berth-test-pg-${process.pid}-${Date.now()}`);
  const pg = await startEmbeddedPostgres(dir);
  project.provide('pgAdminUrl', pg.url);
  return async () => {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}.password`, { force: true });
  };
}
