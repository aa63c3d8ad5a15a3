import { type ApiClient, createApiClient } from '@berth/openapi';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useState } from 'react';
import type { Platform } from '../platform/platform.ts';
import { authKeys } from './query-keys.ts';

export const ApiClientContext = createContext<ApiClient | null>(null);

/**
 * One typed API client for the app: the host's base URL, and the bearer token read from the host's
 * token store before every request (so a fresh sign-in is used at once). A 401 on an authenticated call
 * refreshes the session once through the store's refresh token (both new tokens go back to the store)
 * and retries; when the refresh is refused the tokens are forgotten and the profile reloads, which
 * signs the user out (SessionProvider).
 */
export function ApiClientProvider({ platform, children }: { platform: Platform; children: ReactNode }) {
  const queryClient = useQueryClient();
  const [client] = useState(() =>
    createApiClient({
      baseUrl: platform.apiBaseUrl,
      getToken: () => platform.tokenStore.get(),
      getRefreshToken: () => platform.tokenStore.getRefreshToken(),
      onTokens: ({ token, refreshToken }) => platform.tokenStore.set(token, refreshToken),
      onSessionEnded: () => {
        void platform.tokenStore
          .clear()
          .then(() => queryClient.invalidateQueries({ queryKey: authKeys.profile() }));
      },
    }),
  );
  return <ApiClientContext.Provider value={client}>{children}</ApiClientContext.Provider>;
}
