import type { SupportPlan } from '@berth/openapi/rules';
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export const TICKET_STATUSES = ['open', 'answered', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** What the customer agreed to share at submit time (see help-desk.context.ts). */
export interface TicketContext {
  plan: string;
  standing: string;
  instances: {
    name: string;
    type: string;
    status: string;
    lastError: string | null;
    ssl: string | null;
  }[];
}

export interface HelpTicketTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  email: string;
  category: string;
  subject: string;
  message: string;
  path: string | null;
  status: ColumnType<TicketStatus, TicketStatus | undefined, TicketStatus>;
  context: ColumnType<TicketContext | null, string | null | undefined, string | null>;
  /** The sender's plan when they sent it ('free': a trial or a lapsed plan). */
  plan: ColumnType<SupportPlan, SupportPlan, never>;
  /** When support promised an answer: sent + 4 h on Pro, 24 h otherwise (SUPPORT_RESPONSE_HOURS). */
  due_at: ColumnType<Date, Date, never>;
  response_text: string | null;
  responded_at: Date | null;
  responded_by: string | null;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date>;
}

export interface HelpUploadTable {
  id: Generated<string>;
  /** Random, e.g. `3f…9a.png`; the file's name under the uploads directory. */
  file_name: string;
  /** The name the uploader's file had (shown only). */
  original_name: string;
  content_type: string;
  size: number;
  uploaded_by: string;
  /** Null until a submit or an answer attaches it. */
  ticket_id: string | null;
  /** 'request' (the customer's), 'response' (the admin's); null while unattached. */
  role: 'request' | 'response' | null;
  position: ColumnType<number, number | undefined, number>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface AnnouncementTable {
  id: Generated<string>;
  sent_by: string | null;
  scope: 'all' | 'plan' | 'single';
  plan: string | null;
  user_id: string | null;
  type: string;
  title: string;
  message: string;
  send_email: boolean;
  recipients: number;
  delivered: ColumnType<number, number | undefined, number>;
  cursor: string | null;
  created_at: ColumnType<Date, never, never>;
  completed_at: Date | null;
}

export type HelpTicketRow = Selectable<HelpTicketTable>;
export type NewHelpTicketRow = Insertable<HelpTicketTable>;
export type HelpUploadRow = Selectable<HelpUploadTable>;
export type AnnouncementRow = Selectable<AnnouncementTable>;
