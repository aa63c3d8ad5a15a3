/**
 * The bridge the preload exposes as `window.desktop`: intent-level methods over the fixed channels of the
 * contract. Built over the slice of `ipcRenderer` it needs, so tests connect it to the real main-process
 * handlers through an in-memory IPC.
 */
import { type DesktopBridge, IpcChannel, RendererEvent } from '../shared/ipc-contract.ts';

/** The part of Electron's `ipcRenderer` used here. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export function createBridge(ipc: IpcRendererLike): DesktopBridge {
  // The main process answers with the types of the contract (its handlers check what they receive).
  const invoke = <T>(channel: IpcChannel, ...args: unknown[]) => ipc.invoke(channel, ...args) as Promise<T>;
  return {
    getToken: () => invoke(IpcChannel.getToken),
    setToken: (token) => invoke(IpcChannel.setToken, token),
    clearToken: () => invoke(IpcChannel.clearToken),
    getRefreshToken: () => invoke(IpcChannel.getRefreshToken),
    setRefreshToken: (token) => invoke(IpcChannel.setRefreshToken, token),
    getSecret: (name, userId) => invoke(IpcChannel.getSecret, name, userId),
    setSecret: (name, userId, value) => invoke(IpcChannel.setSecret, name, userId, value),
    deleteSecret: (name, userId) => invoke(IpcChannel.deleteSecret, name, userId),
    getServerUrl: () => invoke(IpcChannel.getServerUrl),
    setServerUrl: (url) => invoke(IpcChannel.setServerUrl, url),
    reportInstanceCounts: (counts) => invoke(IpcChannel.reportInstanceCounts, counts),
    openExternal: (url) => invoke(IpcChannel.openExternal, url),
    notify: (title, body, route) =>
      route === undefined
        ? invoke(IpcChannel.notify, title, body)
        : invoke(IpcChannel.notify, title, body, route),
    onOpenRoute: (listener) => {
      // Only the route goes to the page, never Electron's event object (it would expose `sender`).
      const forward = (_event: unknown, route: unknown) => {
        if (typeof route === 'string') listener(route);
      };
      ipc.on(RendererEvent.openRoute, forward);
      return () => {
        ipc.removeListener(RendererEvent.openRoute, forward);
      };
    },
  };
}
