import { type InstanceCounts, IpcChannel, SECRET_NAMES, type SecretName } from '../shared/ipc-contract.ts';
import { isInAppRoute, isSafeExternalUrl } from './navigation.ts';
import type { SessionUser } from './session-user.ts';
import type { Settings } from './settings.ts';
import { refreshAccount, secretAccount, sessionAccount, type TokenStore } from './token-store.ts';

/** The part of Electron's `ipcMain` used here; tests pass a fake. */
export interface IpcRegistrar {
  handle(channel: string, listener: (event: unknown, ...args: unknown[]) => unknown): void;
}

export interface IpcDeps {
  tokenStore: TokenStore;
  settings: Settings;
  /** Loads the app again (after the server URL changed), once the current IPC call has answered. */
  reloadApp(): void;
  /** Opens a URL in the system browser (`shell.openExternal`). */
  openExternal(url: string): Promise<void>;
  /** Shows a system notification; a click opens `route` in the app (see notifier.ts). */
  notify(title: string, body: string, route?: string): void;
  /** Updates the tray (see tray.ts). */
  reportInstanceCounts(counts: InstanceCounts | null): void;
  /** Whose session a stored access token is, as the server says (session-user.ts). */
  sessionUser: SessionUser;
}

type Handler = (...args: unknown[]) => unknown;

/** Arguments come from the renderer: check them instead of trusting the types. */
function requireString(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  return value;
}

function requireSecretName(value: unknown): SecretName {
  const name = SECRET_NAMES.find((known) => known === value);
  if (!name) throw new TypeError(`Unknown secret: ${String(value)}`);
  return name;
}

/** A user id as the API gives it (a UUID); anything else could change the shape of the keychain account. */
function requireUserId(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(value))
    throw new TypeError('user id must be an id of the API');
  return value;
}

function requireRoute(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const route = requireString(value, 'route');
  if (!isInAppRoute(route)) throw new TypeError(`route must be an in-app path, got: ${route}`);
  return route;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function requireCounts(value: unknown): InstanceCounts | null {
  if (value === null) return null;
  const { running, total } = (typeof value === 'object' ? value : {}) as Partial<Record<string, unknown>>;
  if (!isCount(running) || !isCount(total) || running > total)
    throw new TypeError('counts must be { running, total } with 0 ≤ running ≤ total, or null');
  return { running, total };
}

/** Registers one handler per channel of the contract (the `Record` makes a missing channel a type error). */
export function registerIpcHandlers(ipc: IpcRegistrar, deps: IpcDeps): void {
  const { tokenStore, settings } = deps;
  const currentSession = () => sessionAccount(settings.getServerUrl());
  const currentRefresh = () => refreshAccount(settings.getServerUrl());
  /**
   * The keychain account of a secret of the signed-in user: the user whose session is stored, as the
   * server tells it. The renderer names the user it means; any other user's secret is refused, so a
   * page cannot read the API key another person of this computer kept.
   */
  const secret = async (name: unknown, userId: unknown) => {
    const secretName = requireSecretName(name);
    const claimed = requireUserId(userId);
    const serverUrl = settings.getServerUrl();
    const token = await tokenStore.get(sessionAccount(serverUrl));
    const signedIn = token === null ? null : await deps.sessionUser(serverUrl, token);
    if (signedIn === null) throw new Error('Nobody is signed in: secrets are kept for the signed-in user');
    if (claimed !== signedIn) throw new Error('Refused: a secret of a user who is not signed in');
    return secretAccount(secretName, signedIn, serverUrl);
  };

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
    [IpcChannel.getSecret]: async (name, userId) => tokenStore.get(await secret(name, userId)),
    [IpcChannel.setSecret]: async (name, userId, value) => {
      const text = requireString(value, 'secret');
      if (text === '') throw new TypeError('secret must not be empty');
      return tokenStore.set(await secret(name, userId), text);
    },
    [IpcChannel.deleteSecret]: async (name, userId) => {
      await tokenStore.delete(await secret(name, userId));
    },
    [IpcChannel.getServerUrl]: () => settings.getServerUrl(),
    // Throws (and nothing is saved or reloaded) when the URL is not an absolute http(s) URL.
    [IpcChannel.setServerUrl]: (url) => {
      settings.setServerUrl(requireString(url, 'url'));
      deps.reloadApp();
    },
    [IpcChannel.reportInstanceCounts]: (counts) => deps.reportInstanceCounts(requireCounts(counts)),
    [IpcChannel.openExternal]: (url) => {
      const target = requireString(url, 'url');
      if (!isSafeExternalUrl(target)) throw new Error(`Refusing to open non-http(s) URL: ${target}`);
      return deps.openExternal(target);
    },
    [IpcChannel.notify]: (title, body, route) =>
      deps.notify(requireString(title, 'title'), requireString(body, 'body'), requireRoute(route)),
  };

  for (const [channel, handler] of Object.entries(handlers)) {
    ipc.handle(channel, (_event, ...args) => handler(...args));
  }
}
