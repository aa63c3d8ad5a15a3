import { type ApiClient, createApiClient } from '@berth/openapi';
import { createContext, type ReactNode, useState } from 'react';
import type { Platform } from '../platform/platform.ts';

export const ApiClientContext = createContext<ApiClient | null>(null);

/**
 * One typed API client for the app: the host's base URL, and the bearer token read from the host's
 * token store before every request (so a fresh sign-in is used at once).
 */
export function ApiClientProvider({ platform, children }: { platform: Platform; children: ReactNode }) {
  const [client] = useState(() =>
    createApiClient({ baseUrl: platform.apiBaseUrl, getToken: () => platform.tokenStore.get() }),
  );
  return <ApiClientContext.Provider value={client}>{children}</ApiClientContext.Provider>;
}
