import { type SupportPlan, supportResponseHours } from '@berth/openapi/rules';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { HelpTicketRow, HelpUploadRow, TicketStatus } from '../../db/tables/help-desk.ts';
import { enqueueMail } from '../../jobs/mail-task.ts';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { detectImageType, IMAGE_CONTENT_TYPES } from '../avatars/image-type.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { takeContextSnapshot } from './help-desk.context.ts';
import { FILE_NAME, fileNameOf, type HelpFiles, URL_PREFIX } from './help-desk.files.ts';
import {
  attachUpload,
  deleteOrphanUploads,
  deleteTicket,
  deleteUploads,
  findTicket,
  findTicketPage,
  findTicketsOf,
  findUpload,
  findUploadsOfTickets,
  findUploadWithOwner,
  insertTicket,
  insertUpload,
  knownFileNames,
  lockTicket,
  lockUploads,
  updateTicketResponse,
  updateTicketStatus,
} from './help-desk.repository.ts';
import type {
  AllTicketsQuery,
  AnswerBody,
  Attachment,
  SubmitTicketBody,
  Ticket,
  TicketPage,
} from './help-desk.schemas.ts';

export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
export const UPLOAD_TOO_LARGE = 'Image must be 5 MB or smaller';
const NOT_AN_IMAGE = 'Only PNG, JPEG, GIF or WebP images can be attached';
/** Uploads never attached to a ticket are deleted after this long. */
export const ORPHAN_AGE_MS = 24 * 60 * 60_000;
const TICKET_NOT_FOUND = 'Ticket not found';
const UPLOAD_NOT_FOUND = 'File not found';

export interface HelpDeskDeps {
  db: Db;
  now: () => Date;
  files: HelpFiles;
  notifications: Pick<NotificationsService, 'notify'>;
  subscriptions: Pick<SubscriptionsService, 'get'>;
  /** Origin of the web app, for the link in answer e-mails. */
  publicUrl: string;
}

export type HelpDeskService = ReturnType<typeof createHelpDeskService>;

const attachmentOf = (u: HelpUploadRow): Attachment => ({
  url: URL_PREFIX + u.file_name,
  name: u.original_name,
});

function toTicket(row: HelpTicketRow, uploads: HelpUploadRow[], now: Date): Ticket {
  const mine = uploads.filter((u) => u.ticket_id === row.id);
  return {
    _id: row.id,
    id: row.id,
    name: row.name,
    email: row.email,
    category: row.category as Ticket['category'],
    subject: row.subject,
    message: row.message,
    path: row.path,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    plan: row.plan,
    dueAt: row.due_at.toISOString(),
    overdue: row.status === 'open' && row.due_at < now,
    attachments: mine.filter((u) => u.role === 'request').map(attachmentOf),
    adminResponse:
      row.response_text !== null && row.responded_at !== null
        ? {
            text: row.response_text,
            respondedAt: row.responded_at.toISOString(),
            attachments: mine.filter((u) => u.role === 'response').map(attachmentOf),
          }
        : null,
    context: row.context,
  };
}

/** The plan support answers by: a running paid plan's, else 'free' (a trial, a lapsed plan). */
function supportPlanOf(subscription: Pick<Subscription, 'plan' | 'standing'>): SupportPlan {
  return subscription.standing === 'active' && subscription.plan !== 'free' ? subscription.plan : 'free';
}

/** A display name for an uploaded file: the client's name, cut down, or `image.<ext>`. */
function displayName(name: string, ext: string): string {
  // Control characters and path separators are dropped (the name is only ever displayed).
  const clean = Array.from(name)
    .filter((ch) => ch >= ' ' && ch !== '\u007f' && ch !== '/' && ch !== '\\')
    .join('')
    .trim()
    .slice(0, 120);
  return clean || `image.${ext}`;
}

export function createHelpDeskService({
  db,
  now,
  files,
  notifications,
  subscriptions,
  publicUrl,
}: HelpDeskDeps) {
  async function withUploads(rows: HelpTicketRow[], tx: DbOrTx = db): Promise<Ticket[]> {
    const uploads = await findUploadsOfTickets(
      tx,
      rows.map((r) => r.id),
    );
    const at = now();
    return rows.map((row) => toTicket(row, uploads, at));
  }
  const one = async (row: HelpTicketRow, tx: DbOrTx = db) => (await withUploads([row], tx))[0] as Ticket;

  /**
   * The uploads named by `refs`, locked: each must be `allowed` (else a 400 naming it). Duplicates
   * count once.
   */
  async function resolveAttachments(
    tx: DbOrTx,
    refs: readonly { url: string; name?: string }[],
    allowed: (u: HelpUploadRow) => boolean,
  ): Promise<HelpUploadRow[]> {
    const names = [...new Set(refs.map((r) => fileNameOf(r.url) ?? r.url))];
    const rows = await lockUploads(
      tx,
      names.filter((n) => FILE_NAME.test(n)),
    );
    const byName = new Map(rows.map((r) => [r.file_name, r]));
    return names.map((name, i) => {
      const row = byName.get(name);
      if (!row || !allowed(row)) {
        const label = refs[i]?.name ?? name;
        throw new ValidationError(`Attachment ${label} was not found; upload it again`, {
          fieldErrors: { attachments: ['Attachment not found'] },
        });
      }
      return row;
    });
  }

  async function ticketOf(userId: string, id: string): Promise<HelpTicketRow> {
    const row = isUuid(id) ? await findTicket(db, id) : undefined;
    // Another user's ticket answers exactly like a missing one.
    if (!row || row.user_id !== userId) throw new NotFoundError(TICKET_NOT_FOUND);
    return row;
  }

  return {
    /** Stores one image (type judged by its bytes) unattached; a submit or an answer attaches it. */
    async upload(userId: string, file: File): Promise<Attachment> {
      if (file.size > UPLOAD_MAX_BYTES) throw new PayloadTooLargeError(UPLOAD_TOO_LARGE);
      const bytes = new Uint8Array(await file.arrayBuffer());
      const ext = detectImageType(bytes);
      if (!ext) throw new ValidationError(NOT_AN_IMAGE, { fieldErrors: { file: [NOT_AN_IMAGE] } });
      const fileName = await files.write(bytes, ext);
      try {
        const row = await insertUpload(db, {
          file_name: fileName,
          original_name: displayName(file.name, ext),
          content_type: IMAGE_CONTENT_TYPES[ext],
          size: bytes.byteLength,
          uploaded_by: userId,
        });
        return attachmentOf(row);
      } catch (error) {
        await files.remove([fileName]);
        throw error;
      }
    },

    /** Deletes one of the user's uploads that no ticket uses yet (removed from a form before sending). */
    async removeUpload(userId: string, fileName: string): Promise<void> {
      const row = FILE_NAME.test(fileName) ? await findUpload(db, fileName) : undefined;
      if (!row || row.uploaded_by !== userId || row.ticket_id !== null)
        throw new NotFoundError(UPLOAD_NOT_FOUND);
      await deleteUploads(db, [row.id]);
      await files.remove([row.file_name]);
    },

    /**
     * An uploaded image for the uploader, the owner of the ticket it belongs to, or an admin; everyone
     * else gets the same 404 as for a file that does not exist.
     */
    async readUpload(
      user: { id: string; isAdmin: boolean },
      fileName: string,
    ): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string }> {
      const row = FILE_NAME.test(fileName) ? await findUploadWithOwner(db, fileName) : undefined;
      const allowed = row && (user.isAdmin || row.uploaded_by === user.id || row.ticket_owner === user.id);
      const bytes = allowed ? await files.read(row.file_name) : undefined;
      if (!row || !bytes) throw new NotFoundError(UPLOAD_NOT_FOUND);
      return { bytes, contentType: row.content_type };
    },

    /**
     * Records the ticket with the sender's plan and the answer support promised by it (due 4 hours
     * from now on Pro, 24 otherwise: SUPPORT_RESPONSE_HOURS).
     */
    async submit(userId: string, body: SubmitTicketBody): Promise<Ticket> {
      // Taken before the transaction: reads only, and the snapshot is of this moment either way.
      const subscription = await subscriptions.get(userId);
      const context =
        (body.shareContext ?? true) ? await takeContextSnapshot(db, subscription, userId) : null;
      const plan = supportPlanOf(subscription);
      const sentAt = now();
      return db.transaction().execute(async (tx) => {
        const uploads = await resolveAttachments(
          tx,
          body.attachments ?? [],
          (u) => u.uploaded_by === userId && u.ticket_id === null,
        );
        const row = await insertTicket(tx, {
          user_id: userId,
          name: body.name,
          email: body.email,
          category: body.category,
          subject: body.subject,
          message: body.message,
          path: body.path ?? null,
          context,
          plan,
          due_at: new Date(sentAt.getTime() + supportResponseHours(plan) * 3_600_000),
        });
        for (const [i, u] of uploads.entries()) await attachUpload(tx, u.id, row.id, 'request', i);
        return one(row, tx);
      });
    },

    async listMine(userId: string): Promise<Ticket[]> {
      return withUploads(await findTicketsOf(db, userId));
    },

    /** Deletes one of the user's tickets with its images (the customer's and the answer's). */
    async remove(userId: string, id: string): Promise<void> {
      const row = await ticketOf(userId, id);
      const uploads = await findUploadsOfTickets(db, [row.id]);
      await deleteTicket(db, row.id); // the upload rows go with it (on delete cascade)
      await files.remove(uploads.map((u) => u.file_name));
    },

    async listAll(query: AllTicketsQuery): Promise<TicketPage> {
      const page = query.page ?? 1;
      const limit = query.limit ?? 20;
      const { rows, total } = await findTicketPage(db, query, page, limit);
      return {
        items: await withUploads(rows),
        total,
        page,
        pages: Math.max(1, Math.ceil(total / limit)),
        limit,
      };
    },

    async setStatus(id: string, status: TicketStatus): Promise<Ticket> {
      const row = isUuid(id) ? await updateTicketStatus(db, id, status) : undefined;
      if (!row) throw new NotFoundError(TICKET_NOT_FOUND);
      return one(row);
    },

    /**
     * Saves the admin's answer (replacing an earlier one; its images not kept are deleted), marks the
     * ticket answered, and, in the same transaction, notifies the customer (in-app, live on commit)
     * and queues the e-mail when asked.
     */
    async answer(adminId: string, id: string, body: AnswerBody): Promise<Ticket> {
      const dropped: string[] = [];
      const ticket = await db.transaction().execute(async (tx) => {
        const current = isUuid(id) ? await lockTicket(tx, id) : undefined;
        if (!current) throw new NotFoundError(TICKET_NOT_FOUND);
        const uploads = await resolveAttachments(
          tx,
          body.attachments ?? [],
          (u) =>
            (u.ticket_id === current.id && u.role === 'response') ||
            (u.ticket_id === null && u.uploaded_by === adminId),
        );
        const kept = new Set(uploads.map((u) => u.id));
        const previous = (await findUploadsOfTickets(tx, [current.id])).filter(
          (u) => u.role === 'response' && !kept.has(u.id),
        );
        await deleteUploads(
          tx,
          previous.map((u) => u.id),
        );
        dropped.push(...previous.map((u) => u.file_name));
        for (const [i, u] of uploads.entries()) await attachUpload(tx, u.id, current.id, 'response', i);
        const row = await updateTicketResponse(tx, current.id, { text: body.text, at: now(), by: adminId });

        const title = body.notifyTitle || 'Support answered your ticket';
        const message = body.notifyMessage || `Your ticket "${row.subject}" has a response from support.`;
        if (body.notify ?? true)
          await notifications.notify(row.user_id, { type: 'helpdesk', title, message }, tx);
        if (body.notifyEmail) {
          await enqueueMail(tx, {
            to: row.email,
            subject: body.notifyTitle || `Re: ${row.subject}`,
            text:
              `Hello ${row.name},\n\n${message}\n\n${body.text}\n\n` +
              `Read it and your other tickets at ${publicUrl}/get-help\n`,
          });
        }
        return one(row, tx);
      });
      await files.remove(dropped);
      return ticket;
    },

    /**
     * Deletes uploads no ticket took within ORPHAN_AGE_MS (a form left without sending), and files on
     * disk that no row knows (a crash between writing and recording). Answers how many files went.
     */
    async sweepOrphans(): Promise<number> {
      const before = new Date(now().getTime() - ORPHAN_AGE_MS);
      const names = await deleteOrphanUploads(db, before, 1000);
      const onDisk = await files.listOlderThan(before);
      const known = await knownFileNames(db, onDisk);
      const strays = onDisk.filter((n) => !known.has(n));
      await files.remove([...names, ...strays]);
      return names.length + strays.length;
    },
  };
}
