import type { Schemas } from '@berth/openapi';
import { hydrate, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import type { ServerRenderState } from '../platform/server-render.tsx';
import { ApiRequestError } from './api-error.ts';
import { configKeys } from './query-keys.ts';

/** What the app's query client starts with: the data the page was rendered with. */
export interface QuerySeed {
  /** GET /api/config's answer when the page carries it. */
  publicConfig?: Schemas['PublicConfig'];
  /** The queries a server-rendered signed-in page was rendered with. */
  serverRender?: ServerRenderState;
}

/**
 * The app's query client, with the data the page was rendered with (`seed`) in it from the start, so
 * the first render shows the same.
 */
export function createQueryClient({ publicConfig, serverRender }: QuerySeed = {}): QueryClient {
  const client = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Client errors (4xx) will not change on a retry; server and network errors get one more try.
        retry: (failures, error) => !(error instanceof ApiRequestError && error.status < 500) && failures < 1,
      },
    },
  });
  // The server's public settings as the page was rendered with them.
  if (publicConfig) client.setQueryData(configKeys.public(), publicConfig);
  // The data a server-rendered page was rendered with: the hydration renders the same.
  if (serverRender) hydrate(client, serverRender.queries);
  return client;
}

/**
 * `Component`, rendered inside a QueryClientProvider of the client `useClient` answers (the app's one,
 * query-layer.ts).
 */
export function withQueries<P extends object>(
  Component: ComponentType<P>,
  useClient: () => QueryClient,
): ComponentType<P> {
  function WithQueriesOf(props: P) {
    return (
      <QueryClientProvider client={useClient()}>
        <Component {...props} />
      </QueryClientProvider>
    );
  }
  return WithQueriesOf;
}
