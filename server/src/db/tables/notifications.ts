import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface NotificationTable {
  id: Generated<string>;
  user_id: string;
  /** e.g. welcome, security, trial, helpdesk, announcement. */
  type: string;
  title: string;
  message: string;
  read: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: ColumnType<Date, never, never>;
}

export type NotificationRow = Selectable<NotificationTable>;
export type NewNotificationRow = Insertable<NotificationTable>;
