import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpPeer } from '../../test/smtp-peer.ts';
import { createOutboxMailer, createSmtpMailer } from './mailer.ts';

let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
beforeAll(async () => {
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());

const message = {
  to: 'ada@example.com',
  subject: 'Hello from Berth',
  text: 'Open http://localhost:8080/reset-password?token=abc to go on.',
};

describe('SMTP mailer', () => {
  it('logs in to the SMTP server and delivers the message', async () => {
    await createSmtpMailer(smtp.url, 'Berth <no-reply@berth.test>').send({
      ...message,
      replyTo: { name: 'Grace', address: 'grace@example.com' },
    });
    const mail = await smtp.nextMail();
    expect(mail.subject).toBe('Hello from Berth');
    expect(mail.from?.value).toEqual([{ name: 'Berth', address: 'no-reply@berth.test' }]);
    expect(mail.to && 'value' in mail.to ? mail.to.value : []).toEqual([
      { name: '', address: 'ada@example.com' },
    ]);
    expect(mail.replyTo?.value).toEqual([{ name: 'Grace', address: 'grace@example.com' }]);
    expect(mail.text?.trim()).toBe(message.text);
  });

  it('fails with a wrong password', async () => {
    const wrong = smtp.url.replace('mail-secret', 'not-it');
    await expect(createSmtpMailer(wrong, 'no-reply@berth.test').send(message)).rejects.toMatchObject({
      code: 'EAUTH',
    });
  });
});

describe('outbox mailer (no SMTP configured)', () => {
  it('writes an .eml file to the outbox and prints the links in the log', async () => {
    const tmp = await mkdtemp(path.join(tmpdir(), 'berth-outbox-'));
    const dir = path.join(tmp, 'outbox');
    // An outbox an earlier version left open to everyone is closed again.
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const lines: string[] = [];
    await createOutboxMailer(dir, 'Berth <no-reply@localhost>', (line) => lines.push(line)).send(message);

    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const mail = await simpleParser(await readFile(path.join(dir, files[0] as string)));
    expect(mail.subject).toBe('Hello from Berth');
    expect(mail.text?.trim()).toBe(message.text);
    expect(lines[0]).toContain(`mail to ada@example.com "Hello from Berth" written to ${dir}`);
    expect(lines).toContain('  link: http://localhost:8080/reset-password?token=abc');
    // Reset links are for the server alone: no other user or tenant of the host can read them.
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, files[0] as string))).mode & 0o777).toBe(0o600);
    await rm(tmp, { recursive: true, force: true });
  });
});
