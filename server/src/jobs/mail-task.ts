import type { Task } from 'graphile-worker';
import type { DbOrTx } from '../db/database.ts';
import type { Mailer, MailMessage } from '../lib/mailer.ts';
import { addJob } from './job-queue.ts';

/**
 * Mail sent through the job queue: durable (added in the caller's transaction, so it goes out exactly
 * when the change that asked for it was committed) and retried with graphile-worker's backoff when the
 * mail server refuses or cannot be reached.
 */
export const SEND_MAIL_TASK = 'send-mail';
/** Tries per message (the 5th failure is the last; the backoff is about e^attempt seconds). */
const MAIL_MAX_ATTEMPTS = 5;

export async function enqueueMail(db: DbOrTx, message: MailMessage): Promise<void> {
  await addJob(db, {
    task: SEND_MAIL_TASK,
    payload: { to: message.to, subject: message.subject, text: message.text },
    maxAttempts: MAIL_MAX_ATTEMPTS,
  });
}

function parseMessage(raw: unknown): MailMessage {
  const { to, subject, text } = (raw ?? {}) as Partial<MailMessage>;
  if (typeof to !== 'string' || typeof subject !== 'string' || typeof text !== 'string')
    throw new Error(`Malformed mail job payload: ${JSON.stringify(raw)}`);
  return { to, subject, text };
}

/** The task that sends one queued message; a throw makes the queue try again later. */
export function createMailTask(mailer: Mailer): Task {
  return async (payload) => {
    await mailer.send(parseMessage(payload));
  };
}
