import type { SettingsStore } from '../src/main/settings.ts';
import type { Keychain } from '../src/main/token-store.ts';

/** An in-memory keytar: entries are keyed `service/account` so tests can see where secrets went. */
export function createMemoryKeychain(): Keychain & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const key = (service: string, account: string) => `${service}/${account}`;
  return {
    entries,
    getPassword: async (service, account) => entries.get(key(service, account)) ?? null,
    setPassword: async (service, account, password) => {
      entries.set(key(service, account), password);
    },
    deletePassword: async (service, account) => entries.delete(key(service, account)),
  };
}

/** An in-memory stand-in for electron-store / conf. */
export function createMemorySettingsStore(initial: Record<string, unknown> = {}): SettingsStore & {
  data: Record<string, unknown>;
} {
  const data = { ...initial };
  return {
    data,
    get: (key) => data[key],
    set: (key, value) => {
      data[key] = value;
    },
  };
}
