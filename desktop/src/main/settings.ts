/** App settings (today only the server URL), kept behind an interface so tests never touch electron-store. */

export const DEFAULT_SERVER_URL = 'http://localhost:8080';

export interface Settings {
  /** Base URL of the Berth server, without a trailing slash. */
  getServerUrl(): string;
  /** Throws when `url` is not an absolute http(s) URL. */
  setServerUrl(url: string): void;
}

/** The slice of `conf` / electron-store that settings need. */
export interface SettingsStore {
  get(key: 'serverUrl'): unknown;
  set(key: 'serverUrl', value: string): void;
}

/** Returns the normalised URL ('https://berth.example.com/' → 'https://berth.example.com'), or null if invalid. */
function normalizeServerUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.username || parsed.password || parsed.search || parsed.hash) return null;
  return parsed.href.replace(/\/+$/, '');
}

export function createSettings(store: SettingsStore): Settings {
  return {
    getServerUrl() {
      const stored = store.get('serverUrl');
      // A hand-edited or corrupt settings file falls back to the default rather than breaking start-up.
      return (typeof stored === 'string' && normalizeServerUrl(stored)) || DEFAULT_SERVER_URL;
    },
    setServerUrl(url) {
      const normalized = normalizeServerUrl(url);
      if (!normalized) throw new Error(`Server URL must be an absolute http(s) URL, got: ${url}`);
      store.set('serverUrl', normalized);
    },
  };
}
