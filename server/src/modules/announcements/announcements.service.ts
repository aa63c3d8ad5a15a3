import type { Task } from 'graphile-worker';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { addJob } from '../../jobs/job-queue.ts';
import { enqueueMail } from '../../jobs/mail-task.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import {
  countAudience,
  insertAnnouncement,
  lockAnnouncement,
  nextRecipients,
  recordBatch,
  userExists,
} from './announcements.repository.ts';
import type { SendAnnouncementBody } from './announcements.schemas.ts';

/**
 * Admin announcements (POST /api/notifications/send): the request records the announcement and queues
 * its delivery, so it answers at once whatever the audience; the `announcement-fanout` job then creates
 * the notifications batch by batch (and queues one retried e-mail per recipient when asked). Each
 * batch commits with the announcement's cursor, so a job that dies mid-way resumes without sending a
 * second copy to anyone.
 */
export const FANOUT_TASK = 'announcement-fanout';
const FANOUT_BATCH_SIZE = 500;

export interface AnnouncementsDeps {
  db: Db;
  notifications: Pick<NotificationsService, 'notifyMany'>;
  /** Origin of the web app, for the link in e-mails. */
  publicUrl: string;
}

export type AnnouncementsService = ReturnType<typeof createAnnouncementsService>;

export function createAnnouncementsService({ db, notifications, publicUrl }: AnnouncementsDeps) {
  /** Delivers one batch; answers whether the announcement is complete. */
  async function deliverBatch(id: string, batchSize: number): Promise<boolean> {
    return db.transaction().execute(async (tx) => {
      const row = await lockAnnouncement(tx, id);
      if (!row || row.completed_at) return true;
      const recipients = await nextRecipients(tx, row, row.created_at, row.cursor, batchSize);
      const ids = recipients.map((r) => r.id);
      await notifications.notifyMany(ids, { type: row.type, title: row.title, message: row.message }, tx);
      if (row.send_email) {
        for (const r of recipients) {
          await enqueueMail(tx, {
            to: r.email,
            subject: row.title,
            text: `Hello ${r.first_name},\n\n${row.message}\n\n${publicUrl}/dashboard\n`,
          });
        }
      }
      const done = recipients.length < batchSize;
      await recordBatch(tx, id, { cursor: ids.at(-1) ?? row.cursor, delivered: ids.length, done });
      return done;
    });
  }

  return {
    /** Records the announcement and queues its delivery; answers how many users it goes to. */
    async send(adminId: string, body: SendAnnouncementBody): Promise<{ id: string; count: number }> {
      if (body.scope === 'single' && !(isUuid(body.userId) && (await userExists(db, body.userId))))
        throw new NotFoundError('User not found');
      return db.transaction().execute(async (tx) => {
        const { rows } = await sql<{ now: Date }>`select now() as now`.execute(tx);
        const at = rows[0]?.now ?? new Date();
        const who = {
          scope: body.scope,
          plan: body.scope === 'plan' ? (body.plan ?? null) : null,
          user_id: body.scope === 'single' ? (body.userId ?? null) : null,
        };
        const count = await countAudience(tx, who, at);
        const row = await insertAnnouncement(tx, {
          ...who,
          sent_by: adminId,
          type: body.type,
          title: body.title,
          message: body.message,
          send_email: body.sendEmail ?? false,
          recipients: count,
        });
        await addJob(tx, { task: FANOUT_TASK, payload: { announcementId: row.id }, maxAttempts: 10 });
        return { id: row.id, count };
      });
    },

    /** The job: delivers every remaining batch of one announcement. */
    fanoutTask(batchSize = FANOUT_BATCH_SIZE): Task {
      return async (payload) => {
        const id = (payload as { announcementId?: unknown } | null)?.announcementId;
        if (typeof id !== 'string' || !isUuid(id)) throw new Error(`Malformed ${FANOUT_TASK} payload`);
        while (!(await deliverBatch(id, batchSize))) {
          // one transaction per batch: progress survives a crash
        }
      };
    },
  };
}
