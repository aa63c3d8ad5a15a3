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
    notify: (title, body) => {
      bridge.notify(title, body).catch(logFailure('notify'));
    },
  };
}
