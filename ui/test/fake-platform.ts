import type { Platform } from '../src/platform/platform.ts';

/** A Platform with an in-memory token store; `token` is what the store holds at start. */
export function fakePlatform(token: string | null = null) {
  const store = { token };
  /** System notifications the app asked for. */
  const notified: { title: string; body: string }[] = [];
  const platform: Platform = {
    kind: 'web',
    apiBaseUrl: '',
    tokenStore: {
      get: async () => store.token,
      set: async (value) => {
        store.token = value;
      },
      clear: async () => {
        store.token = null;
      },
    },
    openExternal: () => {},
    notify: (title, body) => {
      notified.push({ title, body });
    },
  };
  return { platform, store, notified };
}
