import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverServers } from './provisioning/leftover-servers.ts';
import { spawnServer } from './server-output.ts';

// `npm start` as a newcomer runs it: no DATABASE_URL, so the server creates and starts its own
// PostgreSQL in the data directory, and keeps everything across restarts.
const serverDir = new URL('../', import.meta.url).pathname;
const children: ChildProcess[] = [];
let dataDir: string;

async function start(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const { child, port } = spawnServer(env);
  children.push(child);
  return { child, base: `http://127.0.0.1:${await port}` };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

type SignedIn = { token: string; user: { role: string } };

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  // The provisioning servers live in their own process group: a killed server leaves them behind.
  if (dataDir) killLeftoverServers(path.join(dataDir, 'provisioning'));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('server start-up with embedded PostgreSQL', () => {
  it('starts with no setup, keeps accounts and sessions across restarts, and make-admin promotes a user', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'berth-main-'));
    const first = await start({ BERTH_DATA_DIR: dataDir });
    const health = await fetch(`${first.base}/api/health`);
    expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok' });

    const account = {
      accountType: 'individual',
      firstName: 'Mary',
      lastName: 'Somerville',
      username: 'mary',
      email: 'mary@example.com',
      password: 'Connexion#1834',
    };
    const second = { ...account, username: 'charles', email: 'charles@example.com' };
    const registered = (await (await post(`${first.base}/api/auth/register`, account)).json()) as SignedIn;
    expect(registered.user.role).toBe('admin');
    expect(
      ((await (await post(`${first.base}/api/auth/register`, second)).json()) as SignedIn).user.role,
    ).toBe('user');

    // make-admin runs beside the live server and attaches to its PostgreSQL.
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/make-admin.ts', 'charles'], {
      cwd: serverDir,
      env: { PATH: process.env.PATH ?? '', BERTH_DATA_DIR: dataDir },
    });
    expect(stdout).toContain('charles <charles@example.com> is now an admin');

    expect(await stop(first.child)).toBe(0);

    const again = await start({ BERTH_DATA_DIR: dataDir });
    const profile = await fetch(`${again.base}/api/auth/profile`, {
      headers: { authorization: `Bearer ${registered.token}` },
    });
    expect(profile.status).toBe(200);
    const login = await post(`${again.base}/api/auth/login`, {
      emailOrUsername: 'charles',
      password: second.password,
    });
    expect(((await login.json()) as SignedIn).user.role).toBe('admin');
    expect(await stop(again.child)).toBe(0);
  }, 60_000);

  it('refuses to start with invalid configuration and says why', async () => {
    await expect(start({ BERTH_DATA_DIR: '/tmp/unused', PORT: 'eighty' })).rejects.toThrow(/PORT/);
  });
});
