import type { Platform } from '../src/platform/platform.ts';

/** A Platform with an in-memory token store; `token` is what the store holds at start. */
export function fakePlatform(token: string | null = null) {
  const store: { token: string | null; refreshToken: string | null } = {
    token,
    refreshToken: token ? `refresh-of-${token}` : null,
  };
  /** System notifications the app asked for. */
  const notified: { title: string; body: string }[] = [];
  /** URLs the app opened outside itself (openExternal), in order. */
  const externalUrls: string[] = [];
  /** Payment provider pages the app sent the user to (openPaymentPage), in order. */
  const paymentPages: string[] = [];
  const platform: Platform = {
    kind: 'web',
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
    notify: (title, body) => {
      notified.push({ title, body });
    },
  };
  return { platform, store, notified, externalUrls, paymentPages };
}
