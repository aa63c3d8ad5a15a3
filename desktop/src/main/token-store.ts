/**
 * Secrets in the OS keychain (Secret Service, macOS Keychain, Windows Credential Manager) under one fixed
 * service name. Accounts name what is stored, per server: `session@<serverUrl>` (access token) and
 * `refresh@<serverUrl>` (its refresh token), and `apiKey:<userId>@<serverUrl>` (a user's API key, kept per
 * user so that the next person to sign in on this computer never sees it; ipc-handlers.ts serves only the
 * signed-in user's). Nothing secret goes to electron-store or the renderer's localStorage.
 */

export const KEYCHAIN_SERVICE = 'Berth';

/** The keytar-compatible API of `@napi-rs/keyring/keytar.js`, injected so tests can use a fake. */
export interface Keychain {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export interface TokenStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** Resolves to false when there was nothing to delete. */
  delete(account: string): Promise<boolean>;
}

/** Account of the session token for one server, so each server keeps its own sign-in. */
export function sessionAccount(serverUrl: string): string {
  return `session@${serverUrl}`;
}

/** Account of the refresh token of that session. */
export function refreshAccount(serverUrl: string): string {
  return `refresh@${serverUrl}`;
}

/** Account of a named secret (today only 'apiKey') of one user of one server. */
export function secretAccount(name: string, userId: string, serverUrl: string): string {
  return `${name}:${userId}@${serverUrl}`;
}

export function createTokenStore(keychain: Keychain): TokenStore {
  return {
    get: (account) => keychain.getPassword(KEYCHAIN_SERVICE, account),
    set: (account, secret) => keychain.setPassword(KEYCHAIN_SERVICE, account, secret),
    delete: (account) => keychain.deletePassword(KEYCHAIN_SERVICE, account),
  };
}
