// Makes an existing user an admin: npm run make-admin -- <email-or-username>
// Uses the same configuration as the server (DATABASE_URL or the embedded PostgreSQL in BERTH_DATA_DIR).
import { connectDatabase } from '../src/db/connect.ts';
import { createDb } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { readConfig } from '../src/env.ts';
import { setRoleByLogin } from '../src/modules/auth/users.repository.ts';

const login = process.argv[2];
if (!login) {
  console.error('usage: npm run make-admin -- <email-or-username>');
  process.exit(2);
}
const config = readConfig();
const database = await connectDatabase(config.databaseUrl, config.dataDir, () => {}, { attach: true });
const db = createDb(database.url, 1);
try {
  await migrateToLatest(db);
  const user = await setRoleByLogin(db, login, 'admin');
  if (!user) {
    console.error(`No user with e-mail or username "${login}"`);
    process.exitCode = 1;
  } else {
    console.log(`${user.username} <${user.email}> is now an admin (they get the role on their next sign-in)`);
  }
} finally {
  await db.destroy();
  await database.stop();
}
