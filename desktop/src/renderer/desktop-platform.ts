import type { Platform } from '@berth/ui';
import type { DesktopBridge } from '../shared/ipc-contract.ts';

declare global {
  interface Window {
    /** Exposed by the preload script (src/preload/index.ts). */
    desktop: DesktopBridge;
  }
}

function logFailure(action: string) {
  return (error: unknown) => console.error(`desktop: ${action} failed`, error);
}

/** The UI's `Platform` on desktop: everything goes through the preload bridge to the main process. */
export function createDesktopPlatform(bridge: DesktopBridge, serverUrl: string): Platform {
  return {
    kind: 'desktop',
    apiBaseUrl: serverUrl,
    tokenStore: {
      get: () => bridge.getToken(),
      getRefreshToken: () => bridge.getRefreshToken(),
      // Both in the keychain, the refresh token first: a crash in between leaves a pair that refreshes.
      set: async (token, refreshToken) => {
        await bridge.setRefreshToken(refreshToken);
        await bridge.setToken(token);
      },
      clear: () => bridge.clearToken(),
    },
    openExternal: (url) => {
      bridge.openExternal(url).catch(logFailure('openExternal'));
    },
    // The renderer never leaves the app: checkout pages open in the system browser.
    openPaymentPage: (url) => {
      bridge.openExternal(url).catch(logFailure('openPaymentPage'));
    },
    notify: (title, body, route) => {
      bridge.notify(title, body, route).catch(logFailure('notify'));
    },
    onOpenRoute: (listener) => bridge.onOpenRoute(listener),
    // The API key goes to the OS keychain, like the session tokens (never to localStorage).
    secrets: {
      get: (name, userId) => bridge.getSecret(name, userId),
      set: (name, userId, value) => bridge.setSecret(name, userId, value),
      delete: (name, userId) => bridge.deleteSecret(name, userId),
    },
    // Saving reloads the app against the new server (the main process does it).
    settings: {
      getServerUrl: () => bridge.getServerUrl(),
      setServerUrl: (url) => bridge.setServerUrl(url),
    },
    reportInstanceCounts: (counts) => {
      bridge.reportInstanceCounts(counts).catch(logFailure('reportInstanceCounts'));
    },
  };
}
