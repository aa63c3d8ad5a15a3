// A real SMTP server for the browser tests (smtp-server), requiring a login like a mail provider does,
// and parsing what it receives (mailparser) so a test reads the mail as a mailbox would. Plain text on
// 127.0.0.1: STARTTLS is not offered, so the client sends in the clear (nodemailer upgrades only when
// the server offers it).
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpPeer {
  /** `smtp://user:pass@127.0.0.1:<port>`, for the server's SMTP_URL. */
  url: string;
  /** Every mail received, in order. */
  received: ParsedMail[];
  /** Logins the peer refused (a wrong SMTP_URL shows here). */
  refusedLogins: string[];
  /** The next mail after those already taken, waiting up to `timeoutMs` for it. */
  nextMail(timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startSmtpPeer({ user = 'berth', pass = 'mail-secret' } = {}): Promise<SmtpPeer> {
  const received: ParsedMail[] = [];
  const refusedLogins: string[] = [];
  const waiting = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else {
        refusedLogins.push(auth.username ?? '');
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push(mail);
          for (const wake of waiting) wake();
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  let taken = 0;

  return {
    url: `smtp://${user}:${pass}@127.0.0.1:${port}`,
    received,
    refusedLogins,
    async nextMail(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (taken >= received.length) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no mail within ${timeoutMs} ms (refused logins: ${refusedLogins.length})`);
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiting.delete(done);
            resolve();
          };
          const timer = setTimeout(done, left);
          waiting.add(done);
        });
      }
      const mail = received[taken++];
      if (!mail) throw new Error('mail list out of step');
      return mail;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
