import { mkdir } from 'node:fs/promises';
import { serve } from '@hono/node-server';
import { createApp, VERSION } from './app.ts';
import { connectDatabase } from './db/connect.ts';
import { createDb } from './db/create-db.ts';
import { migrateToLatest } from './db/migrator.ts';
import { readConfig } from './env.ts';
import { persistentSecret } from './lib/secrets.ts';

const log = (line: string) => console.log(`[berth] ${line}`);

async function main() {
  const config = readConfig();
  await mkdir(config.dataDir, { recursive: true });

  const database = await connectDatabase(config.databaseUrl, config.dataDir, (line) => {
    if (config.logLevel === 'debug') console.log(`[postgres] ${line}`);
  });
  log(
    `database: ${database.source === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}/postgres` : 'DATABASE_URL'}`,
  );
  const db = createDb(database.url);
  const applied = await migrateToLatest(db);
  if (applied.length > 0) log(`migrations applied: ${applied.join(', ')}`);

  const jwtSecret = config.jwtSecret ?? (await persistentSecret(config.dataDir, 'jwt-secret'));
  const app = createApp({ db, jwtSecret, webDistDir: config.webDistDir });

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    log(`Berth ${VERSION} listening on ${config.publicUrl} (port ${info.port})`);
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    server.close();
    await db.destroy();
    await database.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(`[berth] failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
