import type { Db, DbOrTx } from '../../db/database.ts';
import type { NotificationRow } from '../../db/tables/notifications.ts';
import { NotFoundError } from '../../lib/errors.ts';
import type { InstanceEvent } from './notifications.hub.ts';
import {
  countUnread,
  deleteNotifications,
  findAdminIds,
  findNotification,
  findNotifications,
  findNotificationsAfter,
  insertNotification,
  insertNotificationsFor,
  signalNotification,
  updateNotificationsRead,
} from './notifications.repository.ts';
import type {
  MarkReadBody,
  Notification,
  NotificationChange,
  NotificationList,
} from './notifications.schemas.ts';

export interface NotificationInput {
  type: string;
  title: string;
  message: string;
}

export interface NotificationsDeps {
  db: Db;
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

const LIST_LIMIT = 50;
const REPLAY_LIMIT = 100;

function toNotification(row: NotificationRow): Notification {
  return {
    _id: row.id,
    id: row.id,
    type: row.type,
    title: row.title,
    message: row.message,
    createdAt: row.created_at.toISOString(),
    read: row.read,
  };
}

export function createNotificationsService({ db }: NotificationsDeps) {
  const change = async (userId: string, count: number): Promise<NotificationChange> => ({
    count,
    unread: await countUnread(db, userId),
  });

  return {
    /**
     * Creates a notification and signals it to every server process (pg_notify in the same transaction,
     * so streams hear of it on commit). Pass the caller's transaction to make it part of a larger change.
     */
    async notify(userId: string, input: NotificationInput, trx: DbOrTx = db): Promise<Notification> {
      const write = async (tx: DbOrTx) => {
        const row = await insertNotification(tx, { user_id: userId, ...input });
        await signalNotification(tx, { userId, id: row.id });
        return toNotification(row);
      };
      return trx.isTransaction ? write(trx) : trx.transaction().execute(write);
    },

    /**
     * The same notification for many users at once (announcements), signalled on commit of `trx`.
     * Answers how many were created.
     */
    async notifyMany(userIds: readonly string[], input: NotificationInput, trx: DbOrTx): Promise<number> {
      return insertNotificationsFor(trx, userIds, input);
    },

    /** The same notification for every admin (something the operator must see or fix). */
    async notifyAdmins(input: NotificationInput, trx: DbOrTx = db): Promise<number> {
      return insertNotificationsFor(trx, await findAdminIds(trx), input);
    },

    /**
     * Tells the user's open streams that an instance changed (`event: instance`), on commit of `trx`.
     * Nothing is stored: a page that missed it refetches on `resync` or its next poll.
     */
    async publishInstanceEvent(userId: string, instance: InstanceEvent, trx: DbOrTx = db): Promise<void> {
      await signalNotification(trx, { kind: 'instance', userId, instance });
    },

    /** Tells the user's open streams about a new usage point of an instance (`event: usage`). */
    async publishUsage(userId: string, instanceId: string, point: unknown, trx: DbOrTx = db): Promise<void> {
      await signalNotification(trx, { kind: 'usage', userId, instanceId, point });
    },

    /**
     * Tells every server process, on commit of `trx`, that the user's token version is now
     * `tokenVersion`: their caches drop the old one and the user's open streams close.
     */
    async signalSignedOut(userId: string, tokenVersion: number, trx: DbOrTx): Promise<void> {
      await signalNotification(trx, { kind: 'session', userId, tokenVersion });
    },
    async list(userId: string): Promise<NotificationList> {
      const rows = await findNotifications(db, userId, LIST_LIMIT);
      return { items: rows.map(toNotification), unread: await countUnread(db, userId) };
    },

    /** One of the user's notifications, or undefined (also when it belongs to someone else). */
    async get(userId: string, id: string): Promise<Notification | undefined> {
      const row = await findNotification(db, userId, id);
      return row && toNotification(row);
    },

    /** The user's notifications created after `lastId`, oldest first (stream replay). */
    async listAfter(userId: string, lastId: string): Promise<Notification[]> {
      return (await findNotificationsAfter(db, userId, lastId, REPLAY_LIMIT)).map(toNotification);
    },

    async markRead(userId: string, body: MarkReadBody): Promise<NotificationChange> {
      const count = await updateNotificationsRead(db, userId, body.all ? 'all' : (body.ids ?? []));
      return change(userId, count);
    },

    async remove(userId: string, id: string): Promise<NotificationChange> {
      const count = await deleteNotifications(db, userId, id);
      if (count === 0) throw new NotFoundError('Notification not found');
      return change(userId, count);
    },

    async removeAll(userId: string): Promise<NotificationChange> {
      return change(userId, await deleteNotifications(db, userId));
    },
  };
}
