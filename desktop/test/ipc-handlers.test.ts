import { beforeEach, describe, expect, it } from 'vitest';
import { registerIpcHandlers } from '../src/main/ipc-handlers.ts';
import { createSessionUser } from '../src/main/session-user.ts';
import { createSettings } from '../src/main/settings.ts';
import { createTokenStore } from '../src/main/token-store.ts';
import { type InstanceCounts, IpcChannel } from '../src/shared/ipc-contract.ts';
import { createFakeIpc, createMemoryKeychain, createMemorySettingsStore } from './fakes.ts';

describe('registerIpcHandlers', () => {
  let fake: ReturnType<typeof createFakeIpc>;
  let keychain: ReturnType<typeof createMemoryKeychain>;
  let opened: string[];
  let notifications: [string, string, string | undefined][];
  let reloads: number;
  let trayCounts: (InstanceCounts | null)[];
  /** What the server says of each access token (GET /api/auth/profile): its user, per server. */
  let sessions: Map<string, string>;
  let profileCalls: number;

  beforeEach(() => {
    fake = createFakeIpc();
    keychain = createMemoryKeychain();
    opened = [];
    notifications = [];
    reloads = 0;
    trayCounts = [];
    sessions = new Map();
    profileCalls = 0;
    // Berth's answer to GET /api/auth/profile for a token (the server stands in here: the secret
    // tests are about the main process's rule; session-user.test.ts talks HTTP).
    const server = async (input: string | URL | Request, init?: RequestInit) => {
      profileCalls += 1;
      const url = new URL(String(input));
      const token = new Headers(init?.headers).get('authorization')?.replace(/^Bearer /, '') ?? '';
      const user = url.pathname === '/api/auth/profile' ? sessions.get(`${url.origin}|${token}`) : undefined;
      return user
        ? Response.json({ user: { id: user, username: 'ada' } })
        : Response.json({ error: 'unauthorized', message: 'Invalid token' }, { status: 401 });
    };
    registerIpcHandlers(fake.ipc, {
      sessionUser: createSessionUser(server as typeof fetch),
      tokenStore: createTokenStore(keychain),
      settings: createSettings(createMemorySettingsStore()),
      reloadApp: () => {
        reloads += 1;
      },
      openExternal: async (url) => {
        opened.push(url);
      },
      notify: (title, body, route) => {
        notifications.push([title, body, route]);
      },
      reportInstanceCounts: (counts) => {
        trayCounts.push(counts);
      },
    });
  });

  it('registers exactly the channels of the contract', () => {
    expect([...fake.listeners.keys()].sort()).toEqual(
      [
        'app:notify',
        'secrets:delete',
        'secrets:get',
        'secrets:set',
        'session:clear-token',
        'session:get-token',
        'session:set-token',
        'session:get-refresh-token',
        'session:set-refresh-token',
        'settings:get-server-url',
        'settings:set-server-url',
        'shell:open-external',
        'tray:report-instance-counts',
      ].sort(),
    );
    expect([...fake.listeners.keys()].sort()).toEqual(Object.values(IpcChannel).sort());
  });

  it('stores, reads and clears the session token of the current server in the keychain', async () => {
    expect(await fake.invoke(IpcChannel.getToken)).toBeNull();
    await fake.invoke(IpcChannel.setToken, 'tok-1');
    expect(await fake.invoke(IpcChannel.getToken)).toBe('tok-1');
    expect([...keychain.entries]).toEqual([['Berth/session@http://localhost:8080', 'tok-1']]);
    await fake.invoke(IpcChannel.clearToken);
    expect(await fake.invoke(IpcChannel.getToken)).toBeNull();
    expect(keychain.entries.size).toBe(0);
  });

  it('keeps the refresh token in the keychain beside the session token, and clears both', async () => {
    expect(await fake.invoke(IpcChannel.getRefreshToken)).toBeNull();
    await fake.invoke(IpcChannel.setToken, 'access-1');
    await fake.invoke(IpcChannel.setRefreshToken, 'refresh-1');
    expect(await fake.invoke(IpcChannel.getRefreshToken)).toBe('refresh-1');
    expect([...keychain.entries].sort()).toEqual([
      ['Berth/refresh@http://localhost:8080', 'refresh-1'],
      ['Berth/session@http://localhost:8080', 'access-1'],
    ]);
    // A transparent refresh replaces both.
    await fake.invoke(IpcChannel.setRefreshToken, 'refresh-2');
    expect(await fake.invoke(IpcChannel.getRefreshToken)).toBe('refresh-2');
    await expect(fake.invoke(IpcChannel.setRefreshToken, 42)).rejects.toThrow(TypeError);
    await fake.invoke(IpcChannel.clearToken);
    expect(await fake.invoke(IpcChannel.getRefreshToken)).toBeNull();
    expect(keychain.entries.size).toBe(0);
  });

  it('switching the server switches to that server’s token', async () => {
    await fake.invoke(IpcChannel.setToken, 'local-token');
    await fake.invoke(IpcChannel.setServerUrl, 'https://berth.example.com/');
    expect(await fake.invoke(IpcChannel.getServerUrl)).toBe('https://berth.example.com');
    expect(await fake.invoke(IpcChannel.getToken)).toBeNull();
    await fake.invoke(IpcChannel.setToken, 'prod-token');
    await fake.invoke(IpcChannel.setServerUrl, 'http://localhost:8080');
    expect(await fake.invoke(IpcChannel.getToken)).toBe('local-token');
  });

  it('returns the default server URL and rejects invalid ones without saving or reloading', async () => {
    expect(await fake.invoke(IpcChannel.getServerUrl)).toBe('http://localhost:8080');
    for (const invalid of [
      'file:///etc/passwd',
      'berth.example.com',
      'ftp://berth.example.com',
      'https://user:pw@berth.example.com',
      'https://berth.example.com/?next=1',
      '',
    ]) {
      await expect(fake.invoke(IpcChannel.setServerUrl, invalid), invalid).rejects.toThrow(/http\(s\)/);
    }
    await expect(fake.invoke(IpcChannel.setServerUrl, 42)).rejects.toThrow(TypeError);
    expect(await fake.invoke(IpcChannel.getServerUrl)).toBe('http://localhost:8080');
    expect(reloads).toBe(0);
  });

  it('saves a valid server URL, normalised, then reloads the app against it', async () => {
    await fake.invoke(IpcChannel.setServerUrl, ' https://Berth.Example.com/ '.trim());
    expect(await fake.invoke(IpcChannel.getServerUrl)).toBe('https://berth.example.com');
    expect(reloads).toBe(1);
  });

  const userA = '5f0c7a52-4a0e-4a43-9a43-0c6f3f7c1a01';
  const userB = '9d1e2f3a-0000-4000-8000-000000000002';
  /** Stores `token` as the session of the current server, which the server knows as `user`'s. */
  async function signIn(token: string, user: string, server = 'http://localhost:8080') {
    sessions.set(`${server}|${token}`, user);
    await fake.invoke(IpcChannel.setToken, token);
  }

  it("keeps the signed-in user's API key in the keychain, per user and per server", async () => {
    await signIn('token-a', userA);
    expect(await fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).toBeNull();
    await fake.invoke(IpcChannel.setSecret, 'apiKey', userA, 'berth_sk_a');
    expect(await fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).toBe('berth_sk_a');
    // The server was asked once for this token.
    expect(profileCalls).toBe(1);
    // Another server: its own session, and no key of A's kept there.
    await fake.invoke(IpcChannel.setServerUrl, 'https://berth.example.com');
    await signIn('token-a-prod', userA, 'https://berth.example.com');
    expect(await fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).toBeNull();
    await fake.invoke(IpcChannel.setServerUrl, 'http://localhost:8080');
    expect(keychain.entries.get(`Berth/apiKey:${userA}@http://localhost:8080`)).toBe('berth_sk_a');
    // Signing out forgets the session, not the key the user chose to keep: back on A's next sign-in.
    await fake.invoke(IpcChannel.clearToken);
    await signIn('token-a-2', userA);
    expect(await fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).toBe('berth_sk_a');
    await fake.invoke(IpcChannel.deleteSecret, 'apiKey', userA);
    expect(await fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).toBeNull();
    expect(keychain.entries.has(`Berth/apiKey:${userA}@http://localhost:8080`)).toBe(false);
  });

  it("never serves another user's secret: the signed-in user is the server's answer, not the renderer's", async () => {
    await signIn('token-a', userA);
    await fake.invoke(IpcChannel.setSecret, 'apiKey', userA, 'berth_sk_a');
    await fake.invoke(IpcChannel.clearToken);
    // B signs in on the same computer and asks for A's key by A's id: refused, read or write.
    await signIn('token-b', userB);
    const refused = /a secret of a user who is not signed in/;
    await expect(fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).rejects.toThrow(refused);
    await expect(fake.invoke(IpcChannel.setSecret, 'apiKey', userA, 'berth_sk_x')).rejects.toThrow(refused);
    await expect(fake.invoke(IpcChannel.deleteSecret, 'apiKey', userA)).rejects.toThrow(refused);
    expect(await fake.invoke(IpcChannel.getSecret, 'apiKey', userB)).toBeNull();
    // A token the page made up (a JWT saying it is A's) is nobody's to the server.
    const forged = `e30.${Buffer.from(JSON.stringify({ sub: userA })).toString('base64url')}.x`;
    await fake.invoke(IpcChannel.setToken, forged);
    const nobody = /Nobody is signed in/;
    await expect(fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).rejects.toThrow(nobody);
    // Signed out: nobody's secrets.
    await fake.invoke(IpcChannel.clearToken);
    await expect(fake.invoke(IpcChannel.getSecret, 'apiKey', userA)).rejects.toThrow(nobody);
    expect(keychain.entries.get(`Berth/apiKey:${userA}@http://localhost:8080`)).toBe('berth_sk_a');
  });

  it('refuses unknown secret names, odd user ids and empty or non-string secrets', async () => {
    await signIn('token-a', userA);
    await expect(fake.invoke(IpcChannel.getSecret, 'session', userA)).rejects.toThrow(/Unknown secret/);
    await expect(fake.invoke(IpcChannel.setSecret, 'apiKey', 'x@evil', 'k')).rejects.toThrow(/user id/);
    await expect(fake.invoke(IpcChannel.setSecret, 'apiKey', '', 'k')).rejects.toThrow(/user id/);
    await expect(fake.invoke(IpcChannel.setSecret, 'apiKey', userA, '')).rejects.toThrow(/empty/);
    await expect(fake.invoke(IpcChannel.setSecret, 'apiKey', userA, 42)).rejects.toThrow(TypeError);
    expect([...keychain.entries.keys()]).toEqual(['Berth/session@http://localhost:8080']);
  });

  it('passes instance counts to the tray, checking them', async () => {
    await fake.invoke(IpcChannel.reportInstanceCounts, { running: 2, total: 3 });
    await fake.invoke(IpcChannel.reportInstanceCounts, null);
    for (const bad of [
      { running: 4, total: 3 },
      { running: -1, total: 3 },
      { running: 1.5, total: 3 },
      {},
      'x',
    ]) {
      await expect(fake.invoke(IpcChannel.reportInstanceCounts, bad)).rejects.toThrow(TypeError);
    }
    expect(trayCounts).toEqual([{ running: 2, total: 3 }, null]);
  });

  it('rejects a token that is not a string', async () => {
    await expect(fake.invoke(IpcChannel.setToken, { token: 'x' })).rejects.toThrow(TypeError);
    await expect(fake.invoke(IpcChannel.setToken)).rejects.toThrow(TypeError);
    expect(keychain.entries.size).toBe(0);
  });

  it('opens only http(s) links in the system browser', async () => {
    await fake.invoke(IpcChannel.openExternal, 'https://berth.example.com/docs');
    await expect(fake.invoke(IpcChannel.openExternal, 'file:///etc/passwd')).rejects.toThrow(/non-http/);
    await expect(fake.invoke(IpcChannel.openExternal, 'javascript:alert(1)')).rejects.toThrow(/non-http/);
    await expect(fake.invoke(IpcChannel.openExternal, null)).rejects.toThrow(TypeError);
    expect(opened).toEqual(['https://berth.example.com/docs']);
  });

  it('forwards notifications with string title and body, and an in-app route when given', async () => {
    await fake.invoke(IpcChannel.notify, 'Deployed', 'blog.example.com is live');
    await fake.invoke(IpcChannel.notify, 'Instance ready', 'Your MySQL is ready', '/instances');
    await expect(fake.invoke(IpcChannel.notify, 'Deployed', 7)).rejects.toThrow(TypeError);
    for (const route of ['https://evil.example/', '//evil.example/x', 'instances', '/a b', 5]) {
      await expect(fake.invoke(IpcChannel.notify, 'T', 'B', route)).rejects.toThrow(TypeError);
    }
    expect(notifications).toEqual([
      ['Deployed', 'blog.example.com is live', undefined],
      ['Instance ready', 'Your MySQL is ready', '/instances'],
    ]);
  });
});
