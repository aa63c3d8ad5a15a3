import type { Platform, TokenStore } from '@berth/ui';

/** localStorage key of the access token. */
export const TOKEN_STORAGE_KEY = 'token';
/** localStorage key of the refresh token stored beside it. */
export const REFRESH_TOKEN_STORAGE_KEY = 'refreshToken';

const tokenStore: TokenStore = {
  async get() {
    return localStorage.getItem(TOKEN_STORAGE_KEY);
  },
  peek() {
    try {
      return localStorage.getItem(TOKEN_STORAGE_KEY);
    } catch {
      // Storage can be unavailable (a privacy setting): nobody can be signed in then.
      return null;
    }
  },
  async getRefreshToken() {
    return localStorage.getItem(REFRESH_TOKEN_STORAGE_KEY);
  },
  async set(token, refreshToken) {
    localStorage.setItem(TOKEN_STORAGE_KEY, token);
    localStorage.setItem(REFRESH_TOKEN_STORAGE_KEY, refreshToken);
  },
  async clear() {
    localStorage.removeItem(TOKEN_STORAGE_KEY);
    localStorage.removeItem(REFRESH_TOKEN_STORAGE_KEY);
  },
};

/** Listeners of `onOpenRoute`: the app's router, told where a clicked notification leads. */
const routeListeners = new Set<(route: string) => void>();

/**
 * The browser as the UI's host. It keeps no secret besides the session (the API key is shown once), has
 * no settings screen (the server is this origin) and no tray.
 */
export const webPlatform: Platform = {
  kind: 'web',
  apiBaseUrl: '',
  tokenStore,
  openExternal(url) {
    window.open(url, '_blank', 'noopener,noreferrer');
  },
  openPaymentPage(url) {
    window.location.assign(url);
  },
  notify(title, body, route) {
    if (!('Notification' in window) || Notification.permission !== 'granted') return;
    const notification = new Notification(title, { body });
    notification.onclick = () => {
      window.focus();
      if (route) for (const listener of routeListeners) listener(route);
    };
  },
  onOpenRoute(listener) {
    routeListeners.add(listener);
    return () => {
      routeListeners.delete(listener);
    };
  },
  secrets: null,
  settings: null,
  reportInstanceCounts: null,
};
