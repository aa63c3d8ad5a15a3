import type { Platform, TokenStore } from '@berth/ui';
import { INTL_COOKIE, SESSION_COOKIE } from './prerender-contract.ts';

/** localStorage key of the access token. */
export const TOKEN_STORAGE_KEY = 'token';
/** localStorage key of the refresh token stored beside it. */
const REFRESH_TOKEN_STORAGE_KEY = 'refreshToken';

/** How long the session cookie lasts at most; the server checks the token it holds on every visit. */
const SESSION_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;

function writeCookie(name: string, value: string | null): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const lifetime = value === null ? 'Max-Age=0' : `Max-Age=${SESSION_COOKIE_MAX_AGE_S}`;
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API exists only in secure contexts, and a Berth install may be served over plain HTTP on a LAN.
  document.cookie = `${name}=${encodeURIComponent(value ?? '')}; Path=/; SameSite=Lax; ${lifetime}${secure}`;
}

function readCookie(name: string): string | null {
  const found = document.cookie.split('; ').find((part) => part.startsWith(`${name}=`));
  return found === undefined ? null : decodeURIComponent(found.slice(name.length + 1));
}

/**
 * Copies the session into the cookies the server renders signed-in pages with (SIGNED_IN_PAGES): the
 * access token (SESSION_COOKIE), and the locale and time zone dates show in (INTL_COOKIE). `token`
 * null forgets both. Called on every change of the token and when the app starts (a session stored
 * before the cookies existed, a new time zone).
 */
export function syncSessionCookies(token: string | null): void {
  try {
    if (token === null) {
      if (readCookie(SESSION_COOKIE) !== null) writeCookie(SESSION_COOKIE, null);
      if (readCookie(INTL_COOKIE) !== null) writeCookie(INTL_COOKIE, null);
      return;
    }
    if (readCookie(SESSION_COOKIE) !== token) writeCookie(SESSION_COOKIE, token);
    const { locale, timeZone } = new Intl.DateTimeFormat().resolvedOptions();
    const intl = `${locale}|${timeZone}`;
    if (readCookie(INTL_COOKIE) !== intl) writeCookie(INTL_COOKIE, intl);
  } catch {
    // Cookies can be blocked: the pages then render in the browser, as before.
  }
}

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
    syncSessionCookies(token);
  },
  async clear() {
    localStorage.removeItem(TOKEN_STORAGE_KEY);
    localStorage.removeItem(REFRESH_TOKEN_STORAGE_KEY);
    syncSessionCookies(null);
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
