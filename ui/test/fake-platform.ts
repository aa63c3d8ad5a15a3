import type { InstanceCounts, Platform } from '../src/platform/platform.ts';

export interface FakePlatformOptions {
  /** A desktop host: a keychain for secrets, a server URL setting and a tray (the web has none). */
  desktop?: boolean;
  /** The desktop's server URL at start. */
  serverUrl?: string;
  /** Makes `settings.setServerUrl` reject with this message (the desktop's main process refusing a URL). */
  rejectServerUrl?: string;
}

/** A Platform with an in-memory token store; `token` is what the store holds at start. */
export function fakePlatform(token: string | null = null, options: FakePlatformOptions = {}) {
  const store: { token: string | null; refreshToken: string | null } = {
    token,
    refreshToken: token ? `refresh-of-${token}` : null,
  };
  /** System notifications the app asked for. */
  const notified: { title: string; body: string; route?: string }[] = [];
  /** URLs the app opened outside itself (openExternal), in order. */
  const externalUrls: string[] = [];
  /** Payment provider pages the app sent the user to (openPaymentPage), in order. */
  const paymentPages: string[] = [];
  /** Desktop only: the keychain's secrets ('apiKey:<userId>' → value), the server URL, the tray's counts. */
  const desktop = {
    secrets: new Map<string, string>(),
    serverUrl: options.serverUrl ?? 'http://localhost:8080',
    /** Server URLs saved through the Settings screen, in order (each reloads the app on desktop). */
    savedServerUrls: [] as string[],
    trayCounts: [] as (InstanceCounts | null)[],
  };
  const routeListeners = new Set<(route: string) => void>();
  /** What the host does when a system notification is clicked: asks the app to show `route`. */
  const openRoute = (route: string) => {
    for (const listener of routeListeners) listener(route);
  };
  const platform: Platform = {
    kind: options.desktop ? 'desktop' : 'web',
    apiBaseUrl: '',
    tokenStore: {
      get: async () => store.token,
      getRefreshToken: async () => store.refreshToken,
      set: async (value, refreshToken) => {
        store.token = value;
        store.refreshToken = refreshToken;
      },
      clear: async () => {
        store.token = null;
        store.refreshToken = null;
      },
    },
    openExternal: (url) => {
      externalUrls.push(url);
    },
    openPaymentPage: (url) => {
      paymentPages.push(url);
    },
    notify: (title, body, route) => {
      notified.push(route === undefined ? { title, body } : { title, body, route });
    },
    onOpenRoute: (listener) => {
      routeListeners.add(listener);
      return () => {
        routeListeners.delete(listener);
      };
    },
    secrets: options.desktop
      ? {
          get: async (name, userId) => desktop.secrets.get(`${name}:${userId}`) ?? null,
          set: async (name, userId, value) => {
            desktop.secrets.set(`${name}:${userId}`, value);
          },
          delete: async (name, userId) => {
            desktop.secrets.delete(`${name}:${userId}`);
          },
        }
      : null,
    settings: options.desktop
      ? {
          getServerUrl: async () => desktop.serverUrl,
          setServerUrl: async (url) => {
            if (options.rejectServerUrl) throw new Error(options.rejectServerUrl);
            desktop.serverUrl = url;
            desktop.savedServerUrls.push(url);
          },
        }
      : null,
    reportInstanceCounts: options.desktop
      ? (counts) => {
          desktop.trayCounts.push(counts);
        }
      : null,
  };
  return { platform, store, notified, externalUrls, paymentPages, desktop, openRoute };
}
