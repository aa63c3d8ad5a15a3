import { beforeEach, describe, expect, it } from 'vitest';
import { type IpcRegistrar, registerIpcHandlers } from '../src/main/ipc-handlers.ts';
import { createSettings } from '../src/main/settings.ts';
import { createTokenStore } from '../src/main/token-store.ts';
import { IpcChannel } from '../src/shared/ipc-contract.ts';
import { createMemoryKeychain, createMemorySettingsStore } from './fakes.ts';

type Listener = Parameters<IpcRegistrar['handle']>[1];

/** Records handlers like `ipcMain.handle` and invokes them like `ipcRenderer.invoke` would. */
function createFakeIpc() {
  const listeners = new Map<string, Listener>();
  const ipc: IpcRegistrar = {
    handle(channel, listener) {
      if (listeners.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      listeners.set(channel, listener);
    },
  };
  const invoke = async (channel: string, ...args: unknown[]) => {
    const listener = listeners.get(channel);
    if (!listener) throw new Error(`No handler registered for '${channel}'`);
    return listener({}, ...args);
  };
  return { ipc, listeners, invoke };
}

describe('registerIpcHandlers', () => {
  let fake: ReturnType<typeof createFakeIpc>;
  let keychain: ReturnType<typeof createMemoryKeychain>;
  let opened: string[];
  let notifications: [string, string][];

  beforeEach(() => {
    fake = createFakeIpc();
    keychain = createMemoryKeychain();
    opened = [];
    notifications = [];
    registerIpcHandlers(fake.ipc, {
      tokenStore: createTokenStore(keychain),
      settings: createSettings(createMemorySettingsStore()),
      openExternal: async (url) => {
        opened.push(url);
      },
      notify: (title, body) => {
        notifications.push([title, body]);
      },
    });
  });

  it('registers exactly the channels of the contract', () => {
    expect([...fake.listeners.keys()].sort()).toEqual(
      [
        'app:notify',
        'session:clear-token',
        'session:get-token',
        'session:set-token',
        'session:get-refresh-token',
        'session:set-refresh-token',
        'settings:get-server-url',
        'settings:set-server-url',
        'shell:open-external',
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

  it('returns the default server URL and rejects invalid ones', async () => {
    expect(await fake.invoke(IpcChannel.getServerUrl)).toBe('http://localhost:8080');
    await expect(fake.invoke(IpcChannel.setServerUrl, 'file:///etc/passwd')).rejects.toThrow(/http\(s\)/);
    await expect(fake.invoke(IpcChannel.setServerUrl, 42)).rejects.toThrow(TypeError);
    expect(await fake.invoke(IpcChannel.getServerUrl)).toBe('http://localhost:8080');
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

  it('forwards notifications with string title and body only', async () => {
    await fake.invoke(IpcChannel.notify, 'Deployed', 'blog.example.com is live');
    await expect(fake.invoke(IpcChannel.notify, 'Deployed', 7)).rejects.toThrow(TypeError);
    expect(notifications).toEqual([['Deployed', 'blog.example.com is live']]);
  });
});
