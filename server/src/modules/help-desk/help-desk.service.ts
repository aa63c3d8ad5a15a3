import { type SupportPlan, supportResponseHours } from '@berth/openapi/rules';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { HelpTicketRow, HelpUploadRow, TicketStatus } from '../../db/tables/help-desk.ts';
import { enqueueMail } from '../../jobs/mail-task.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { takeContextSnapshot } from './help-desk.context.ts';
import type { HelpFiles } from './help-desk.files.ts';
import {
  attachUpload,
  deleteTicket,
  deleteUploads,
  findTicket,
  findTicketPage,
  findTicketsOf,
  findUploadsOfTickets,
  insertTicket,
  lockTicket,
  updateTicketResponse,
  updateTicketStatus,
} from './help-desk.repository.ts';
import type {
  AllTicketsQuery,
  AnswerBody,
  SubmitTicketBody,
  Ticket,
  TicketPage,
} from './help-desk.schemas.ts';
import { attachmentOf, helpDeskUploads } from './help-desk.uploads.ts';

export { ORPHAN_AGE_MS, UPLOAD_MAX_BYTES, UPLOAD_TOO_LARGE } from './help-desk.uploads.ts';

const TICKET_NOT_FOUND = 'Ticket not found';

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

/**
 * The help desk: customers submit tickets (with their plan's answer time and, by choice, a snapshot of
 * their instances) and admins answer them; the images of both are stored by help-desk.uploads.ts.
 */
export function createHelpDeskService(deps: HelpDeskDeps) {
  const { db, now, files, notifications, subscriptions, publicUrl } = deps;
  async function withUploads(rows: HelpTicketRow[], tx: DbOrTx = db): Promise<Ticket[]> {
    const uploads = await findUploadsOfTickets(
      tx,
      rows.map((r) => r.id),
    );
    const at = now();
    return rows.map((row) => toTicket(row, uploads, at));
  }
  const one = async (row: HelpTicketRow, tx: DbOrTx = db) => (await withUploads([row], tx))[0] as Ticket;
  const { resolveAttachments, upload, removeUpload, readUpload, sweepOrphans } = helpDeskUploads(deps);

  async function ticketOf(userId: string, id: string): Promise<HelpTicketRow> {
    const row = isUuid(id) ? await findTicket(db, id) : undefined;
    // Another user's ticket answers exactly like a missing one.
    if (!row || row.user_id !== userId) throw new NotFoundError(TICKET_NOT_FOUND);
    return row;
  }

  return {
    upload,
    removeUpload,
    readUpload,

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

    sweepOrphans,
  };
}
