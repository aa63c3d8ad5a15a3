import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASS_SECRET, startFakeTurnstile, TEST_SITE_KEY } from './fake-turnstile.ts';
import { killLeftoverServers } from './provisioning/leftover-servers.ts';
import { spawnServer } from './server-output.ts';

// The local-install story of mail and the bot check, on the real process: with no SMTP server the reset
// link lands in the log and the outbox; with Turnstile keys the public config hands out the site key.
const children: ChildProcess[] = [];
let dataDir: string;
let fake: Awaited<ReturnType<typeof startFakeTurnstile>>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'berth-startup-'));
  fake = await startFakeTurnstile();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  // The provisioning servers live in their own process group: a killed server leaves them behind.
  if (dataDir) killLeftoverServers(path.join(dataDir, 'provisioning'));
  await fake.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string>) {
  const { child, port: listening, output } = spawnServer({ BERTH_DATA_DIR: dataDir, ...env });
  children.push(child);
  const port = await listening;
  const stop = () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    return exited;
  };
  return { base: `http://127.0.0.1:${port}`, output, stop };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function waitFor<T>(find: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const found = await find();
    if (found !== undefined) return found;
  }
  throw new Error('timed out');
}

describe('server start-up: mail and bot check', () => {
  it('without SMTP and Turnstile keys, says so, writes mail to the outbox and prints the reset link', async () => {
    const server = await start({ PUBLIC_URL: 'http://berth.test:9999' });
    expect(server.output()).toContain(
      `mail: no SMTP_URL, so mail is written to ${path.join(dataDir, 'outbox')} and its links are printed here`,
    );
    expect(server.output()).toContain('bot check: off');
    expect(await (await fetch(`${server.base}/api/config`)).json()).toMatchObject({ turnstileSiteKey: null });

    const email = 'mary@example.com';
    await post(`${server.base}/api/auth/register`, {
      accountType: 'individual',
      firstName: 'Mary',
      lastName: 'Somerville',
      username: 'mary',
      email,
      password: 'Connexion#1834',
    });
    expect((await post(`${server.base}/api/password-reset/request`, { email })).status).toBe(200);

    const token = await waitFor(
      () => /link: http:\/\/berth\.test:9999\/reset-password\?token=([\w-]+)/.exec(server.output())?.[1],
    );
    expect((await readdir(path.join(dataDir, 'outbox'))).filter((f) => f.endsWith('.eml'))).toHaveLength(1);
    expect((await fetch(`${server.base}/api/password-reset/verify/${token}`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it('with Turnstile keys, says the check is on and serves the site key', async () => {
    const server = await start({
      TURNSTILE_SITE_KEY: TEST_SITE_KEY,
      TURNSTILE_SECRET_KEY: PASS_SECRET,
      TURNSTILE_VERIFY_URL: fake.url,
    });
    expect(server.output()).toContain(`bot check: Turnstile on, verified at ${fake.url}`);
    expect(await (await fetch(`${server.base}/api/config`)).json()).toMatchObject({
      turnstileSiteKey: TEST_SITE_KEY,
    });
    const refused = await post(`${server.base}/api/contact/submit`, {
      name: 'Ada',
      email: 'ada@example.com',
      subject: 'Hi',
      message: 'Hello',
      category: 'general',
    });
    expect(refused.status).toBe(400);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it('refuses to start with only one of the two Turnstile keys', async () => {
    await expect(start({ TURNSTILE_SITE_KEY: TEST_SITE_KEY })).rejects.toThrow(
      /TURNSTILE_SITE_KEY and TURNSTILE_SECRET_KEY must be set together/,
    );
  });
});
