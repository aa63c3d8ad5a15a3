import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';
import type {
  HelpTicketRow,
  HelpUploadRow,
  NewHelpTicketRow,
  TicketContext,
  TicketStatus,
} from '../../db/tables/help-desk.ts';

// Every SQL statement of the help desk: tickets and their uploaded images.

export async function insertTicket(
  db: DbOrTx,
  row: Omit<NewHelpTicketRow, 'context'> & { context: TicketContext | null },
): Promise<HelpTicketRow> {
  return db
    .insertInto('help_tickets')
    .values({ ...row, context: row.context && JSON.stringify(row.context) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findTicket(db: DbOrTx, id: string): Promise<HelpTicketRow | undefined> {
  return db.selectFrom('help_tickets').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks the ticket row until the transaction ends (answers and status changes do not interleave). */
export async function lockTicket(db: DbOrTx, id: string): Promise<HelpTicketRow | undefined> {
  return db.selectFrom('help_tickets').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function findTicketsOf(db: DbOrTx, userId: string): Promise<HelpTicketRow[]> {
  return db
    .selectFrom('help_tickets')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(200)
    .execute();
}

export interface TicketFilter {
  q?: string;
  status?: TicketStatus;
  category?: string;
  /** 'due' (default): open tickets first, the one due soonest on top, then the others newest first. */
  sort?: 'due' | 'newest';
}

/** One page of all tickets matching the filter, in the filter's order, and how many match in all. */
export async function findTicketPage(
  db: DbOrTx,
  filter: TicketFilter,
  page: number,
  limit: number,
): Promise<{ rows: HelpTicketRow[]; total: number }> {
  let base = db.selectFrom('help_tickets');
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.category) base = base.where('category', '=', filter.category);
  const q = filter.q?.trim();
  if (q) {
    // Matched literally: % _ and \ in the search are escaped.
    const pattern = `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    base = base.where((eb) =>
      eb.or([
        eb('subject', 'ilike', pattern),
        eb('message', 'ilike', pattern),
        eb('name', 'ilike', pattern),
        eb('email', 'ilike', pattern),
      ]),
    );
  }
  const { n } = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  let ordered = base.selectAll();
  if (filter.sort !== 'newest')
    ordered = ordered
      .orderBy(sql`case when status = 'open' then 0 else 1 end`)
      .orderBy(sql`case when status = 'open' then due_at end`);
  const rows = await ordered
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  return { rows, total: Number(n) };
}

export async function updateTicketStatus(
  db: DbOrTx,
  id: string,
  status: TicketStatus,
): Promise<HelpTicketRow | undefined> {
  return db
    .updateTable('help_tickets')
    .set({ status, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function updateTicketResponse(
  db: DbOrTx,
  id: string,
  response: { text: string; at: Date; by: string },
): Promise<HelpTicketRow> {
  return db
    .updateTable('help_tickets')
    .set({
      response_text: response.text,
      responded_at: response.at,
      responded_by: response.by,
      status: 'answered',
      updated_at: response.at,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteTicket(db: DbOrTx, id: string): Promise<void> {
  await db.deleteFrom('help_tickets').where('id', '=', id).execute();
}

// Uploads

export async function insertUpload(
  db: DbOrTx,
  row: { file_name: string; original_name: string; content_type: string; size: number; uploaded_by: string },
): Promise<HelpUploadRow> {
  return db.insertInto('help_uploads').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findUpload(db: DbOrTx, fileName: string): Promise<HelpUploadRow | undefined> {
  return db.selectFrom('help_uploads').selectAll().where('file_name', '=', fileName).executeTakeFirst();
}

/** The upload and, when attached, the owner of its ticket. */
export async function findUploadWithOwner(
  db: DbOrTx,
  fileName: string,
): Promise<(HelpUploadRow & { ticket_owner: string | null }) | undefined> {
  return db
    .selectFrom('help_uploads')
    .leftJoin('help_tickets', 'help_tickets.id', 'help_uploads.ticket_id')
    .selectAll('help_uploads')
    .select('help_tickets.user_id as ticket_owner')
    .where('help_uploads.file_name', '=', fileName)
    .executeTakeFirst();
}

/** Uploads of these tickets, in their order. */
export async function findUploadsOfTickets(
  db: DbOrTx,
  ticketIds: readonly string[],
): Promise<HelpUploadRow[]> {
  if (ticketIds.length === 0) return [];
  return db
    .selectFrom('help_uploads')
    .selectAll()
    .where('ticket_id', 'in', ticketIds)
    .orderBy('position')
    .orderBy('created_at')
    .execute();
}

/** Locks the named uploads (for attaching them). */
export async function lockUploads(db: DbOrTx, fileNames: readonly string[]): Promise<HelpUploadRow[]> {
  if (fileNames.length === 0) return [];
  return db.selectFrom('help_uploads').selectAll().where('file_name', 'in', fileNames).forUpdate().execute();
}

export async function attachUpload(
  db: DbOrTx,
  id: string,
  ticketId: string,
  role: 'request' | 'response',
  position: number,
): Promise<void> {
  await db
    .updateTable('help_uploads')
    .set({ ticket_id: ticketId, role, position })
    .where('id', '=', id)
    .execute();
}

export async function deleteUploads(db: DbOrTx, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('help_uploads').where('id', 'in', ids).execute();
}

/** Unattached uploads older than `before` (at most `limit`), deleted; answers their file names. */
export async function deleteOrphanUploads(db: DbOrTx, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .deleteFrom('help_uploads')
    .where(
      'id',
      'in',
      db
        .selectFrom('help_uploads')
        .select('id')
        .where('ticket_id', 'is', null)
        .where('created_at', '<', before)
        .limit(limit),
    )
    .returning('file_name')
    .execute();
  return rows.map((r) => r.file_name);
}

/** Every file name the database knows (the sweep keeps these on disk). */
export async function knownFileNames(db: DbOrTx, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db
    .selectFrom('help_uploads')
    .select('file_name')
    .where('file_name', 'in', names)
    .execute();
  return new Set(rows.map((r) => r.file_name));
}

/** For the context snapshot: the user's instances, with what support wants to know. */
export async function findInstanceFacts(db: DbOrTx, userId: string) {
  return db
    .selectFrom('instances')
    .select(['name', 'type', 'status', 'status_message', 'custom_domain', 'ssl'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .limit(50)
    .execute();
}
