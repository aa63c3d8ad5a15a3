import path from 'node:path';
import pg from 'pg';
import { attachOrStartEmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres.ts';

export interface DatabaseConnection {
  url: string;
  /** Where it came from, for the start-up log. */
  source: 'DATABASE_URL' | 'embedded';
  stop(): Promise<void>;
}

const PLATFORM_DB = 'berth';

/** Creates a database on the server behind `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * DATABASE_URL when given; otherwise an embedded PostgreSQL under `<dataDir>/postgres`. With `attach`
 * (commands run beside the server) it reuses the one a running server started.
 */
export async function connectDatabase(
  databaseUrl: string | undefined,
  dataDir: string,
  log: (line: string) => void,
  { attach = false } = {},
): Promise<DatabaseConnection> {
  if (databaseUrl) return { url: databaseUrl, source: 'DATABASE_URL', stop: async () => {} };
  const dir = path.join(dataDir, 'postgres');
  const server = attach
    ? await attachOrStartEmbeddedPostgres(dir, log)
    : await startEmbeddedPostgres(dir, log);
  return { url: await ensureDatabase(server.url, PLATFORM_DB), source: 'embedded', stop: server.stop };
}
