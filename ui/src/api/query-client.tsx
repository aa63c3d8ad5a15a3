import { hydrate, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ComponentType, ReactNode } from 'react';
import { ApiRequestError } from './api-error.ts';
import { configKeys } from './query-keys.ts';
import { type QuerySeed, useQueryLayer } from './query-layer.ts';

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

/** `children` inside a QueryClientProvider of the app's one client. */
function WithQueries({ children }: { children: ReactNode }) {
  const client = useQueryLayer().client(createQueryClient);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

/** `Component`, rendered inside the app's QueryClientProvider. */
export function withQueries<P extends object>(Component: ComponentType<P>): ComponentType<P> {
  function WithQueriesOf(props: P) {
    return (
      <WithQueries>
        <Component {...props} />
      </WithQueries>
    );
  }
  return WithQueriesOf;
}
