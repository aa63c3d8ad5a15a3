import type { DbOrTx } from '../../db/database.ts';
import type { NewContactMessageRow } from '../../db/tables/contact-messages.ts';

export async function insertContactMessage(db: DbOrTx, row: NewContactMessageRow): Promise<void> {
  await db.insertInto('contact_messages').values(row).execute();
}
