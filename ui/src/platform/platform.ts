/**
 * Everything the UI knows about the program that hosts it. The web shell (browser) and the desktop
 * shell (Electron renderer) each provide one implementation; the UI never reaches past it.
 */
export interface TokenStore {
  /** The stored access token, or null when signed out. */
  get(): Promise<string | null>;
  /** The refresh token stored beside it, or null. */
  getRefreshToken(): Promise<string | null>;
  /** Stores a new pair (sign-in, a transparent refresh, a password change). */
  set(token: string, refreshToken: string): Promise<void>;
  /** Forgets both tokens. */
  clear(): Promise<void>;
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
  /** Show a system notification when the host supports it; a no-op otherwise. */
  notify(title: string, body: string): void;
}
