import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { hashSecret } from './auth.context.ts';
import { deleteSetupTokens, insertSetupToken } from './sessions.repository.ts';
import { adminExists } from './users.repository.ts';

/**
 * At start: while no admin exists, a new one-time setup token (its hash stored) for the server to print;
 * registering with it makes the admin. Once an admin exists, every setup token is deleted and this
 * answers undefined.
 */
export async function prepareSetupToken(db: Db): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    // The lock registration takes too, so a token is never made beside a registration making an admin.
    await sql`select pg_advisory_xact_lock(hashtext('berth:first-admin'))`.execute(trx);
    if (await adminExists(trx)) {
      await deleteSetupTokens(trx);
      return undefined;
    }
    const token = randomBytes(24).toString('base64url');
    await insertSetupToken(trx, hashSecret(token));
    return token;
  });
}
