// Brings Berth back on a new machine from its backups: npm run restore-platform -- <backup-id|latest>
// Same configuration as the server (DATABASE_URL or the embedded PostgreSQL in BERTH_DATA_DIR, BACKUP_S3_*)
// and the ENCRYPTION_KEY of the lost machine (without it neither the backups nor the stored secrets can be
// read). Then start the server: each instance is redeployed and restored from its latest backup.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { connectDatabase } from '../src/db/connect.ts';
import { readConfig } from '../src/env.ts';
import { parseEncryptionKey } from '../src/lib/crypto.ts';
import { restorePlatform } from '../src/modules/platform-backups/platform-recovery.ts';
import { createBackupVault } from '../src/start-up.ts';

const which = process.argv[2];
if (!which) {
  console.error('usage: npm run restore-platform -- <backup-id|latest>');
  process.exit(2);
}
const log = (line: string) => console.log(`[restore-platform] ${line}`);
const config = readConfig();
const keyFile = path.join(config.dataDir, 'secrets', 'encryption-key');
const encryptionKey =
  config.encryptionKey ??
  (existsSync(keyFile) ? parseEncryptionKey((await readFile(keyFile, 'utf8')).trim()) : undefined);
if (!encryptionKey) {
  console.error(
    `No encryption key: set ENCRYPTION_KEY to the lost machine's key (or copy its secrets/encryption-key to ${keyFile}).`,
  );
  process.exit(2);
}
const vault = createBackupVault(config, encryptionKey);
log(`backups in ${vault.store.description}`);
const database = await connectDatabase(config.databaseUrl, config.dataDir, () => {});
try {
  await restorePlatform({ vault, databaseUrl: database.url, which, log });
  log('done: start the server (npm start); the instances come back as their jobs run');
} catch (error) {
  console.error(`[restore-platform] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await database.stop();
}
