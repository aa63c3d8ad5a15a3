import type { ApiClient, ApiClientOptions } from '@berth/openapi';
import { createContext, type ReactNode, useEffect, useState } from 'react';
import type { Platform } from '../platform/platform.ts';
import { authKeys } from './query-keys.ts';
import { useQueryLayer } from './query-layer.ts';

export const ApiClientContext = createContext<ApiClient | null>(null);

type RequestMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE' | 'request';

/**
 * The API client, whose code (openapi-fetch and the session refresh) is its own chunk: the first paint
 * of a public page needs no request, so the chunk loads after it. Every call waits for the chunk, then
 * goes to the real client; `load()` starts the download ahead of the first call.
 */
export function deferredApiClient(options: ApiClientOptions): ApiClient & { load(): Promise<ApiClient> } {
  let client: Promise<ApiClient> | undefined;
  const load = () => {
    client ??= import('@berth/openapi').then(({ createApiClient }) => createApiClient(options));
    return client;
  };
  const call =
    (method: RequestMethod) =>
    (...args: unknown[]) =>
      load().then((real) => (real[method] as (...a: unknown[]) => Promise<unknown>)(...args));
  return {
    load,
    request: call('request') as ApiClient['request'],
    GET: call('GET') as ApiClient['GET'],
    PUT: call('PUT') as ApiClient['PUT'],
    POST: call('POST') as ApiClient['POST'],
    DELETE: call('DELETE') as ApiClient['DELETE'],
    OPTIONS: call('OPTIONS') as ApiClient['OPTIONS'],
    HEAD: call('HEAD') as ApiClient['HEAD'],
    PATCH: call('PATCH') as ApiClient['PATCH'],
    TRACE: call('TRACE') as ApiClient['TRACE'],
    // Middleware registered before the chunk is in runs before any call: promise callbacks keep order.
    use: (...middleware) => void load().then((real) => real.use(...middleware)),
    eject: (...middleware) => void load().then((real) => real.eject(...middleware)),
  };
}

/**
 * One typed API client for the app: the host's base URL, and the bearer token read from the host's
 * token store before every request (so a fresh sign-in is used at once). A 401 on an authenticated call
 * refreshes the session once through the store's refresh token (both new tokens go back to the store)
 * and retries; when the refresh is refused the tokens are forgotten and the profile reloads, which
 * signs the user out (SessionProvider).
 */
export function ApiClientProvider({ platform, children }: { platform: Platform; children: ReactNode }) {
  const queries = useQueryLayer();
  const [client] = useState(() => {
    const deferred = deferredApiClient({
      baseUrl: platform.apiBaseUrl,
      fetch: platform.fetch,
      getToken: () => platform.tokenStore.get(),
      getRefreshToken: () => platform.tokenStore.getRefreshToken(),
      onTokens: ({ token, refreshToken }) => platform.tokenStore.set(token, refreshToken),
      onSessionEnded: () => {
        void platform.tokenStore
          .clear()
          .then(() => queries.peek()?.invalidateQueries({ queryKey: authKeys.profile() }));
      },
    });
    // A stored session means the profile is the first thing to load (no prerendered page is shown): get
    // the client's code at once, beside the app's own. A visitor's page is on screen already, so its
    // download waits for the first commit (below), before the page's first request needs it.
    if (platform.tokenStore.peek?.()) void deferred.load();
    return deferred;
  });
  useEffect(() => {
    void client.load();
  }, [client]);
  return <ApiClientContext.Provider value={client}>{children}</ApiClientContext.Provider>;
}
