import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface ContactMessageTable {
  id: Generated<string>;
  name: string;
  email: string;
  subject: string;
  message: string;
  category: 'general' | 'technical' | 'billing' | 'feature' | 'bug';
  /** The page the visitor wrote from, when the form sends it. */
  path: string | null;
  ip: string | null;
  created_at: ColumnType<Date, never, never>;
}

export type ContactMessageRow = Selectable<ContactMessageTable>;
export type NewContactMessageRow = Insertable<ContactMessageTable>;
