/**
 * The only place that defines IPC between the renderer and the main process.
 * Channels are named `<area>:<action>`; the preload exposes them as the intent-level `DesktopBridge`.
 */
export const IpcChannel = {
  getToken: 'session:get-token',
  setToken: 'session:set-token',
  clearToken: 'session:clear-token',
  getRefreshToken: 'session:get-refresh-token',
  setRefreshToken: 'session:set-refresh-token',
  getServerUrl: 'settings:get-server-url',
  setServerUrl: 'settings:set-server-url',
  openExternal: 'shell:open-external',
  notify: 'app:notify',
} as const;

export type IpcChannel = (typeof IpcChannel)[keyof typeof IpcChannel];

/** What the preload exposes to the renderer as `window.desktop`. Every method is one IPC round trip. */
export interface DesktopBridge {
  /** Session token for the configured server, or null when signed out. */
  getToken(): Promise<string | null>;
  setToken(token: string): Promise<void>;
  /** Forgets the session token and the refresh token. */
  clearToken(): Promise<void>;
  /** Refresh token of the session for the configured server (kept in the keychain too), or null. */
  getRefreshToken(): Promise<string | null>;
  setRefreshToken(token: string): Promise<void>;
  /** Base URL of the Berth server, e.g. 'http://localhost:8080' (no trailing slash). */
  getServerUrl(): Promise<string>;
  /** Rejects when the URL is not http(s). */
  setServerUrl(url: string): Promise<void>;
  /** Opens an http(s) link in the system browser; rejects for any other scheme. */
  openExternal(url: string): Promise<void>;
  notify(title: string, body: string): Promise<void>;
}
