import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ssh2 from 'ssh2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addressKey, createLoginLimiter } from './sftp-login-limiter.ts';
import { createSftpServer, newHostKey, type SftpServer } from './sftp-server.ts';

const WINDOW = 15 * 60_000;
const PASSWORDS = {
  alice: 'alice-secret',
  bob: 'bob-secret',
  carol: 'carol-secret',
  dave: 'dave-secret',
  erin: 'erin-secret',
} as const;
const passwordOf = new Map<string, string>(Object.entries(PASSWORDS));

let base = '';
let server: SftpServer | undefined;
let clock = 1_000_000_000;
let checks: string[] = [];
let logs: string[] = [];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'berth-sftp-limit-')));
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A real server on 127.0.0.1, an ephemeral port, the test's clock and a few accounts. */
async function startServer(): Promise<number> {
  clock = 1_000_000_000;
  checks = [];
  logs = [];
  server = createSftpServer({
    host: '127.0.0.1',
    port: 0,
    hostKeyFile: path.join(base, 'host_key'),
    async authenticate(user, password) {
      checks.push(user);
      return passwordOf.get(user) === password
        ? {
            session: () => Promise.reject(new Error('these tests open no sessions')),
          }
        : undefined;
    },
    log: (line) => logs.push(line),
    loginLimits: { now: () => clock },
  });
  await server.start();
  const port = server.port();
  if (!port) throw new Error('no port');
  return port;
}

/** One password login with ssh2's client: whether the server accepted it. */
function login(port: number, user: string, password: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    client.on('ready', () => {
      client.end();
      resolve(true);
    });
    client.on('error', (error: Error & { level?: string }) => {
      if (error.level === 'client-authentication') resolve(false);
      else reject(error);
    });
    client.connect({
      host: '127.0.0.1',
      port,
      username: user,
      password,
      authHandler: ['password'],
      readyTimeout: 10_000,
    });
  });
}

async function failTimes(port: number, user: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) expect(await login(port, user, 'wrong')).toBe(false);
}

describe('sftp failed-login limits', () => {
  it('locks a user name after 5 failed logins until the window passes', async () => {
    const port = await startServer();
    await failTimes(port, 'alice', 5);
    expect(checks).toHaveLength(5);

    // Locked: refused like a wrong password, without checking it.
    expect(await login(port, 'alice', PASSWORDS.alice)).toBe(false);
    expect(await login(port, 'alice', 'wrong')).toBe(false);
    expect(checks).toHaveLength(5);
    expect(logs).toEqual(['sftp: too many failed logins for alice from 127.0.0.1, refusing for 15 min']);

    clock += WINDOW - 1;
    expect(await login(port, 'alice', PASSWORDS.alice)).toBe(false);
    expect(checks).toHaveLength(5);

    clock += 1;
    expect(await login(port, 'alice', PASSWORDS.alice)).toBe(true);
    expect(checks).toHaveLength(6);
    expect(logs).toHaveLength(1);
  });

  it('locks a user name that does not exist alike', async () => {
    const port = await startServer();
    await failTimes(port, 'nobody', 5);
    expect(await login(port, 'nobody', 'wrong')).toBe(false);
    expect(checks).toHaveLength(5);
    expect(logs).toEqual(['sftp: too many failed logins for nobody from 127.0.0.1, refusing for 15 min']);
  });

  it('counts failures within the window only', async () => {
    const port = await startServer();
    await failTimes(port, 'alice', 4);
    clock += WINDOW;
    await failTimes(port, 'alice', 4);
    expect(await login(port, 'alice', PASSWORDS.alice)).toBe(true);
    expect(logs).toEqual([]);
  });

  it('does not lock other users, until the address limit of 20 is reached', async () => {
    const port = await startServer();
    await failTimes(port, 'alice', 5);
    expect(await login(port, 'bob', PASSWORDS.bob)).toBe(true);

    await failTimes(port, 'carol', 5);
    await failTimes(port, 'dave', 5);
    await failTimes(port, 'erin', 4);
    // 19 failures from 127.0.0.1 so far: bob still logs in, and his success does not clear them.
    expect(await login(port, 'bob', PASSWORDS.bob)).toBe(true);
    await failTimes(port, 'nobody', 1);
    expect(logs.at(-1)).toBe('sftp: too many failed logins for 127.0.0.1, refusing for 15 min');

    const before = checks.length;
    expect(await login(port, 'bob', PASSWORDS.bob)).toBe(false);
    expect(await login(port, 'frank', 'whatever')).toBe(false);
    expect(checks).toHaveLength(before);
    expect(logs.filter((line) => line.includes('for 127.0.0.1,'))).toHaveLength(1);

    clock += WINDOW;
    expect(await login(port, 'bob', PASSWORDS.bob)).toBe(true);
  });

  it('clears the failures of a user name at a successful login', async () => {
    const port = await startServer();
    await failTimes(port, 'alice', 4);
    expect(await login(port, 'alice', PASSWORDS.alice)).toBe(true);
    await failTimes(port, 'alice', 4);
    expect(await login(port, 'alice', PASSWORDS.alice)).toBe(true);
    expect(checks).toHaveLength(10);
    expect(logs).toEqual([]);
  });

  it('checks no more passwords than the limit when logins come in parallel', async () => {
    const port = await startServer();
    const results = await Promise.all(Array.from({ length: 12 }, () => login(port, 'alice', 'wrong')));
    expect(results.every((ok) => !ok)).toBe(true);
    expect(checks).toHaveLength(5);
    expect(await login(port, 'alice', PASSWORDS.alice)).toBe(false);
    expect(logs).toHaveLength(1);
  });
});

describe('login limiter', () => {
  it('takes its limits and window from options', async () => {
    let now = 0;
    const lines: string[] = [];
    const limiter = createLoginLimiter({
      maxFailuresPerUser: 2,
      maxFailuresPerAddress: 3,
      windowMs: 60_000,
      now: () => now,
      log: (line) => lines.push(line),
    });
    const no = async () => undefined;
    const yes = async () => 'account';
    await limiter.attempt('a', '10.0.0.1', no);
    await limiter.attempt('a', '10.0.0.1', no);
    expect(await limiter.attempt('a', '10.0.0.1', yes)).toBeUndefined();
    expect(await limiter.attempt('b', '10.0.0.1', yes)).toBe('account');
    await limiter.attempt('b', '10.0.0.1', no);
    expect(await limiter.attempt('c', '10.0.0.1', yes)).toBeUndefined();
    expect(await limiter.attempt('c', '10.0.0.2', yes)).toBe('account');
    expect(lines).toEqual([
      'sftp: too many failed logins for a from 10.0.0.1, refusing for 1 min',
      'sftp: too many failed logins for 10.0.0.1, refusing for 1 min',
    ]);
    now = 60_000;
    expect(await limiter.attempt('a', '10.0.0.1', yes)).toBe('account');
  });

  it('locks a user name only from the address that failed: its owner elsewhere still logs in', async () => {
    const lines: string[] = [];
    const limiter = createLoginLimiter({ log: (line) => lines.push(line) });
    const no = async () => undefined;
    const yes = async () => 'account';
    // A stranger guesses the (public) user name from one address, then another: each gets locked out.
    for (let i = 0; i < 5; i++) await limiter.attempt('shop1', '203.0.113.9', no);
    for (let i = 0; i < 5; i++) await limiter.attempt('shop1', '198.51.100.4', no);
    expect(await limiter.attempt('shop1', '203.0.113.9', yes)).toBeUndefined();
    expect(await limiter.attempt('shop1', '198.51.100.4', yes)).toBeUndefined();
    // The owner, from their own address, is not.
    expect(await limiter.attempt('shop1', '192.0.2.10', yes)).toBe('account');
    expect(lines).toEqual([
      'sftp: too many failed logins for shop1 from 203.0.113.9, refusing for 15 min',
      'sftp: too many failed logins for shop1 from 198.51.100.4, refusing for 15 min',
    ]);
  });

  it('does not count errors of the check as failures', async () => {
    const limiter = createLoginLimiter({ maxFailuresPerUser: 1, log: () => {} });
    await expect(
      limiter.attempt('a', '10.0.0.1', async () => {
        throw new Error('database down');
      }),
    ).rejects.toThrow('database down');
    expect(await limiter.attempt('a', '10.0.0.1', async () => 'account')).toBe('account');
  });

  it('keeps its memory bounded', async () => {
    let now = 0;
    const limiter = createLoginLimiter({
      maxFailuresPerAddress: 1_000_000,
      maxEntries: 100,
      now: () => now,
      log: () => {},
    });
    for (let i = 0; i < 500; i++)
      await limiter.attempt(`user${i}`, `10.0.${i >> 8}.${i & 255}`, async () => undefined);
    expect(limiter.size()).toBeLessThanOrEqual(100);
    now += 15 * 60_000 + 60_000;
    await limiter.attempt('late', '10.1.0.1', async () => undefined);
    expect(limiter.size()).toBe(2);
  });

  it('escapes control characters of user names in the log', async () => {
    const lines: string[] = [];
    const limiter = createLoginLimiter({ maxFailuresPerUser: 1, log: (line) => lines.push(line) });
    await limiter.attempt('evil\nsftp: fake', '10.0.0.1', async () => undefined);
    expect(lines).toEqual([
      'sftp: too many failed logins for evil\\nsftp: fake from 10.0.0.1, refusing for 15 min',
    ]);
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.0.0.7', '10.0.0.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('counts %s as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});

describe('sftp host key', () => {
  it('is always one ssh2 accepts (its own generator writes a malformed key about 1 time in 170)', () => {
    for (let i = 0; i < 1000; i++) expect(ssh2.utils.parseKey(newHostKey())).not.toBeInstanceOf(Error);
  });

  it('is replaced when the file holds one that cannot be parsed, and the server starts', async () => {
    const file = path.join(base, 'host_key');
    await writeFile(file, '-----BEGIN OPENSSH PRIVATE KEY-----\nbroken\n-----END OPENSSH PRIVATE KEY-----\n');
    await startServer();
    expect(server?.listening()).toBe(true);
    expect(ssh2.utils.parseKey(await readFile(file, 'utf8'))).not.toBeInstanceOf(Error);
  });
});
