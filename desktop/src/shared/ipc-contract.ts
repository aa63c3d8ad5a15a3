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
  getSecret: 'secrets:get',
  setSecret: 'secrets:set',
  deleteSecret: 'secrets:delete',
  getServerUrl: 'settings:get-server-url',
  setServerUrl: 'settings:set-server-url',
  reportInstanceCounts: 'tray:report-instance-counts',
  openExternal: 'shell:open-external',
  notify: 'app:notify',
} as const;

export type IpcChannel = (typeof IpcChannel)[keyof typeof IpcChannel];

/** Messages the main process sends to the renderer (`webContents.send`), never invoked by it. */
export const RendererEvent = {
  /** Show this in-app route, e.g. after a click on a system notification. Payload: the path. */
  openRoute: 'app:open-route',
} as const;

/** The secrets the renderer may keep in the keychain beside the session: only the user's API key. */
export const SECRET_NAMES = ['apiKey'] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

/** What the tray shows: the signed-in user's instances, or null when nobody is signed in. */
export interface InstanceCounts {
  running: number;
  total: number;
}

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
  /**
   * A secret of the signed-in user of the configured server (kept in the keychain), or null. `userId`
   * must be that user's (the main process asks the server whose the stored session is): another's is
   * refused.
   */
  getSecret(name: SecretName, userId: string): Promise<string | null>;
  setSecret(name: SecretName, userId: string, value: string): Promise<void>;
  deleteSecret(name: SecretName, userId: string): Promise<void>;
  /** Base URL of the Berth server, e.g. 'http://localhost:8080' (no trailing slash). */
  getServerUrl(): Promise<string>;
  /** Saves the URL and reloads the app against that server; rejects when the URL is not http(s). */
  setServerUrl(url: string): Promise<void>;
  /** Updates the tray's "2 of 3 instances running" line; null when signed out. */
  reportInstanceCounts(counts: InstanceCounts | null): Promise<void>;
  /** Opens an http(s) link in the system browser; rejects for any other scheme. */
  openExternal(url: string): Promise<void>;
  /** Shows a system notification; a click brings the app forward and opens `route` (an in-app path). */
  notify(title: string, body: string, route?: string): Promise<void>;
  /** Calls `listener` with each route the main process asks to show. Returns the unsubscribe function. */
  onOpenRoute(listener: (route: string) => void): () => void;
}
