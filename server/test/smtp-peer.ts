import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server in-process (smtp-server) that requires a login and parses what it receives
 * (mailparser), so tests read mail exactly as a mailbox would.
 */
export async function startSmtpPeer({ user = 'berth', pass = 'mail-secret' } = {}) {
  const received: ParsedMail[] = [];
  let arrived = () => {};
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push(mail);
          arrived();
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  let taken = 0;

  return {
    url: `smtp://${user}:${pass}@127.0.0.1:${port}`,
    port,
    received,
    /** The next mail after those already taken. */
    async nextMail(timeoutMs = 3000): Promise<ParsedMail> {
      const deadline = Date.now() + timeoutMs;
      while (taken >= received.length) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          arrived = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return received[taken++] as ParsedMail;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
