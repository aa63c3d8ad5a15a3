import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

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

/** DATABASE_URL when given; otherwise an embedded PostgreSQL under `<dataDir>/postgres`. */
export async function connectDatabase(
  databaseUrl: string | undefined,
  dataDir: string,
  log: (line: string) => void,
): Promise<DatabaseConnection> {
  if (databaseUrl) return { url: databaseUrl, source: 'DATABASE_URL', stop: async () => {} };
  const server = await startEmbeddedPostgres(path.join(dataDir, 'postgres'), log);
  return { url: await ensureDatabase(server.url, PLATFORM_DB), source: 'embedded', stop: server.stop };
}
