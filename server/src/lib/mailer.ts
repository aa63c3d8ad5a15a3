import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { privateDir } from './private-dir.ts';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; every http(s) link in it is printed in the log when mail goes to the outbox. */
  text: string;
  replyTo?: { name: string; address: string };
}

/** Sends e-mail. `kind` tells where it goes: a real SMTP server, the outbox folder, or memory (tests). */
export interface Mailer {
  readonly kind: 'smtp' | 'outbox' | 'memory';
  send(message: MailMessage): Promise<void>;
}

/** Mail over SMTP, e.g. `smtps://user:pass@mail.example.com:465` (nodemailer URL options allowed). */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl, { from });
  return {
    kind: 'smtp',
    async send(message) {
      await transport.sendMail(message);
    },
  };
}

/**
 * Mail written as `.eml` files to `dir` instead of being sent, so a local install works without an SMTP
 * server: the links in each message (e.g. the password-reset link) are printed with `log`.
 */
export function createOutboxMailer(dir: string, from: string, log: (line: string) => void): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true }, { from });
  return {
    kind: 'outbox',
    async send(message) {
      const { message: raw } = await transport.sendMail(message);
      // Mail holds password-reset links: only the server's user may read it.
      await privateDir(dir);
      const file = path.join(dir, `${Date.now()}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, raw as Buffer, { mode: 0o600 });
      log(`mail to ${message.to} "${message.subject}" written to ${file}`);
      for (const link of message.text.match(/https?:\/\/\S+/g) ?? []) log(`  link: ${link}`);
    },
  };
}

/** Keeps messages in `sent` (tests, and the OpenAPI generator that sends nothing). */
export function createMemoryMailer(): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    kind: 'memory',
    sent,
    async send(message) {
      sent.push(message);
    },
  };
}

/**
 * Sends without making the caller wait, so an answer takes the same time whether or not a mail went out
 * (e.g. a password-reset request must not reveal which e-mails exist). Failures are logged.
 */
export function sendInBackground(mailer: Mailer, message: MailMessage): void {
  mailer.send(message).catch((err: unknown) => {
    console.error(
      `[mail] sending "${message.subject}" failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
}
