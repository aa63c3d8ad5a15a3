import type { IpcRegistrar } from '../src/main/ipc-handlers.ts';
import type { WindowLike } from '../src/main/main-window.ts';
import type { SettingsStore } from '../src/main/settings.ts';
import type { Keychain } from '../src/main/token-store.ts';
import type { IpcRendererLike } from '../src/preload/bridge.ts';

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

type MainListener = Parameters<IpcRegistrar['handle']>[1];
type RendererListener = Parameters<IpcRendererLike['on']>[1];

/**
 * Electron's IPC in memory: `ipc` records handlers like `ipcMain.handle`, `renderer` invokes them like
 * `ipcRenderer.invoke` (arguments are structured-cloned, as Electron does) and receives what
 * `webContents` sends through `sendToRenderer`.
 */
export function createFakeIpc() {
  const listeners = new Map<string, MainListener>();
  const rendererListeners = new Map<string, Set<RendererListener>>();
  const ipc: IpcRegistrar = {
    handle(channel, listener) {
      if (listeners.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      listeners.set(channel, listener);
    },
  };
  const invoke = async (channel: string, ...args: unknown[]) => {
    const listener = listeners.get(channel);
    if (!listener) throw new Error(`No handler registered for '${channel}'`);
    return listener({}, ...structuredClone(args));
  };
  const renderer: IpcRendererLike = {
    invoke,
    on(channel, listener) {
      const set = rendererListeners.get(channel) ?? new Set();
      set.add(listener);
      rendererListeners.set(channel, set);
    },
    removeListener(channel, listener) {
      rendererListeners.get(channel)?.delete(listener);
    },
  };
  const sendToRenderer = (channel: string, ...args: unknown[]) => {
    for (const listener of rendererListeners.get(channel) ?? []) listener({ sender: 'webContents' }, ...args);
  };
  return { ipc, listeners, invoke, renderer, sendToRenderer };
}

/** A BrowserWindow as main-window.ts sees it, recording what happened to it. */
export function createFakeWindow(sendToRenderer: (channel: string, ...args: unknown[]) => void) {
  const calls: string[] = [];
  const state = { minimized: false, destroyed: false };
  const window: WindowLike = {
    isDestroyed: () => state.destroyed,
    isMinimized: () => state.minimized,
    restore: () => {
      calls.push('restore');
      state.minimized = false;
    },
    show: () => calls.push('show'),
    focus: () => calls.push('focus'),
    webContents: {
      send: (channel, ...args) => {
        calls.push(`send ${channel} ${JSON.stringify(args)}`);
        sendToRenderer(channel, ...args);
      },
    },
  };
  return { window, calls, state };
}
