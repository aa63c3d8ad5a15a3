import { IpcChannel } from '../shared/ipc-contract.ts';
import { isSafeExternalUrl } from './navigation.ts';
import type { Settings } from './settings.ts';
import { refreshAccount, sessionAccount, type TokenStore } from './token-store.ts';

/** The part of Electron's `ipcMain` used here; tests pass a fake. */
export interface IpcRegistrar {
  handle(channel: string, listener: (event: unknown, ...args: unknown[]) => unknown): void;
}

export interface IpcDeps {
  tokenStore: TokenStore;
  settings: Settings;
  /** Opens a URL in the system browser (`shell.openExternal`). */
  openExternal(url: string): Promise<void>;
  /** Shows a system notification. */
  notify(title: string, body: string): void;
}

type Handler = (...args: unknown[]) => unknown;

/** Arguments come from the renderer: check them instead of trusting the types. */
function requireString(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  return value;
}

/** Registers one handler per channel of the contract (the `Record` makes a missing channel a type error). */
export function registerIpcHandlers(ipc: IpcRegistrar, deps: IpcDeps): void {
  const { tokenStore, settings } = deps;
  const currentSession = () => sessionAccount(settings.getServerUrl());
  const currentRefresh = () => refreshAccount(settings.getServerUrl());

  const handlers: Record<IpcChannel, Handler> = {
    [IpcChannel.getToken]: () => tokenStore.get(currentSession()),
    [IpcChannel.setToken]: (token) => tokenStore.set(currentSession(), requireString(token, 'token')),
    [IpcChannel.clearToken]: async () => {
      await tokenStore.delete(currentSession());
      await tokenStore.delete(currentRefresh());
    },
    [IpcChannel.getRefreshToken]: () => tokenStore.get(currentRefresh()),
    [IpcChannel.setRefreshToken]: (token) =>
      tokenStore.set(currentRefresh(), requireString(token, 'refresh token')),
    [IpcChannel.getServerUrl]: () => settings.getServerUrl(),
    [IpcChannel.setServerUrl]: (url) => settings.setServerUrl(requireString(url, 'url')),
    [IpcChannel.openExternal]: (url) => {
      const target = requireString(url, 'url');
      if (!isSafeExternalUrl(target)) throw new Error(`Refusing to open non-http(s) URL: ${target}`);
      return deps.openExternal(target);
    },
    [IpcChannel.notify]: (title, body) =>
      deps.notify(requireString(title, 'title'), requireString(body, 'body')),
  };

  for (const [channel, handler] of Object.entries(handlers)) {
    ipc.handle(channel, (_event, ...args) => handler(...args));
  }
}
