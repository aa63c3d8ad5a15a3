import type { Db } from '../../db/database.ts';
import { type Mailer, sendInBackground } from '../../lib/mailer.ts';
import { insertContactMessage } from './contact.repository.ts';
import type { ContactBody } from './contact.schemas.ts';

export interface ContactDeps {
  db: Db;
  mailer: Mailer;
  /** Where messages are mailed (SUPPORT_EMAIL). */
  supportEmail: string;
}

export type ContactService = ReturnType<typeof createContactService>;

export function createContactService({ db, mailer, supportEmail }: ContactDeps) {
  return {
    /** Stores the message (the record of truth) and mails it to support, replying to the sender. */
    async submit(body: ContactBody, ip: string): Promise<{ success: true; message: string }> {
      const { name, email, subject, message, category } = body;
      await insertContactMessage(db, {
        name,
        email,
        subject,
        message,
        category,
        path: body.path ?? null,
        ip,
      });
      sendInBackground(mailer, {
        to: supportEmail,
        replyTo: { name, address: email },
        subject: `[Contact: ${category}] ${subject}`,
        text: [
          `From: ${name} <${email}>`,
          `Category: ${category}`,
          `Page: ${body.path ?? '-'}`,
          '',
          message,
        ].join('\n'),
      });
      return { success: true, message: "Message sent successfully! We'll get back to you within 24 hours." };
    },
  };
}
