import type { QueryClient } from '@tanstack/react-query';
import { type ComponentType, createContext, useContext } from 'react';
import { type LazyComponent, lazyComponent } from '../components/lazy-component.tsx';
import { loadOnce } from '../components/load-once.ts';
import type { QuerySeed } from './query-client.tsx';

// The query layer's code: TanStack Query and the app's client set-up (./query-client.tsx). The public
// pages that render from the page's own data never need it, so a visitor of / downloads it only with
// the first screen that fetches, or for a stored session.
const queryClientCode = loadOnce(() => import('./query-client.tsx'));

/**
 * The app's one query client, created when its code is here. The app holds one QueryLayer; every
 * part that fetches (a screen, the top bar, the profile) renders inside a QueryClientProvider of
 * its client (withQueries).
 */
export class QueryLayer {
  readonly seed: QuerySeed;
  #client: QueryClient | undefined;

  /** `client`: one made already (the server's render, which reads what a page asked for). */
  constructor(seed: QuerySeed, client?: QueryClient) {
    this.seed = seed;
    this.#client = client;
  }

  /** The client, made by `create` on the first call. */
  client(create: (seed: QuerySeed) => QueryClient): QueryClient {
    this.#client ??= create(this.seed);
    return this.#client;
  }

  /** The client if its code is here, else undefined (nothing is cached then). */
  peek(): QueryClient | undefined {
    const code = queryClientCode.current();
    return code ? this.client(code.createQueryClient) : this.#client;
  }

  /** The client, once its code is here. */
  async ready(): Promise<QueryClient> {
    return this.client((await queryClientCode.get()).createQueryClient);
  }
}

export const QueryLayerContext = createContext<QueryLayer | null>(null);

export function useQueryLayer(): QueryLayer {
  const layer = useContext(QueryLayerContext);
  if (!layer) throw new Error('useQueryLayer must be used inside App');
  return layer;
}

/**
 * A component loaded on first use (lazyComponent) that fetches data: it loads with the query layer's
 * code and renders inside the app's QueryClientProvider.
 */
export function lazyWithQueries<P extends object>(load: () => Promise<ComponentType<P>>): LazyComponent<P> {
  return lazyComponent(async () => {
    const [Component, { withQueries, createQueryClient }] = await Promise.all([
      load(),
      queryClientCode.get(),
    ]);
    const useAppQueryClient = () => useQueryLayer().client(createQueryClient);
    return withQueries(Component, useAppQueryClient);
  });
}
