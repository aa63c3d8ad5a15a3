/**
 * Everything the UI knows about the program that hosts it. The web shell (browser) and the desktop
 * shell (Electron renderer) each provide one implementation; the UI never reaches past it.
 */
export interface TokenStore {
  /** The stored access token, or null when signed out. */
  get(): Promise<string | null>;
  /**
   * The stored access token read at once, for hosts that can (the browser's localStorage): the first
   * render then knows whether someone is signed in, so a prerendered public page hydrates without a
   * loading screen in between. Hosts whose store is asynchronous (the desktop keychain) leave it out.
   */
  peek?(): string | null;
  /** The refresh token stored beside it, or null. */
  getRefreshToken(): Promise<string | null>;
  /** Stores a new pair (sign-in, a transparent refresh, a password change). */
  set(token: string, refreshToken: string): Promise<void>;
  /** Forgets both tokens. */
  clear(): Promise<void>;
}

/** Secrets the host may keep for a user beside the session: only the API key today. */
export type SecretName = 'apiKey';

/**
 * Where the host keeps a user's secrets (desktop: the OS keychain, per user and per server). Each call
 * names the user, so a key never shows to the next person who signs in on the same computer; the host
 * refuses any user but the one whose session it holds.
 */
export interface SecretStore {
  get(name: SecretName, userId: string): Promise<string | null>;
  set(name: SecretName, userId: string, value: string): Promise<void>;
  delete(name: SecretName, userId: string): Promise<void>;
}

/** The host's own settings, shown on the Settings screen (desktop). */
export interface HostSettings {
  /** Base URL of the Berth server the app talks to. */
  getServerUrl(): Promise<string>;
  /**
   * Saves a new server URL and reloads the app against it. Rejects (and changes nothing) when the host
   * refuses the URL.
   */
  setServerUrl(url: string): Promise<void>;
}

/** The signed-in user's instances, as the desktop tray shows them ("2 of 3 instances running"). */
export interface InstanceCounts {
  running: number;
  total: number;
}

export interface Platform {
  kind: 'web' | 'desktop';
  /** Base URL of the Berth server ('' means same origin). */
  apiBaseUrl: string;
  tokenStore: TokenStore;
  /** Open a link outside the app (new browser tab, or the system browser on desktop). */
  openExternal(url: string): void;
  /**
   * Send the user to a payment provider's page (checkout, customer portal): this tab on the web, the
   * system browser on desktop.
   */
  openPaymentPage(url: string): void;
  /**
   * Show a system notification when the host supports it; a no-op otherwise. A click on it brings the app
   * forward at `route` (an in-app path such as '/instances'), through `onOpenRoute`.
   */
  notify(title: string, body: string, route?: string): void;
  /** Calls `listener` with each in-app route the host asks the app to show. Returns the unsubscribe. */
  onOpenRoute(listener: (route: string) => void): () => void;
  /**
   * Where the API key may be kept after it was shown (desktop: the OS keychain), or null where nothing
   * may keep it (web: the key is shown once).
   */
  secrets: SecretStore | null;
  /** The host's settings (server URL) for the Settings screen, or null where there are none (web). */
  settings: HostSettings | null;
  /** Tells the host's tray how many instances run (null: signed out); null where there is no tray (web). */
  reportInstanceCounts: ((counts: InstanceCounts | null) => void) | null;
  /**
   * How API requests are sent, where not by the global fetch: the server's own render of a signed-in
   * page (web/src/prerender-entry.tsx) answers them in-process.
   */
  fetch?: (request: Request) => Promise<Response>;
}
