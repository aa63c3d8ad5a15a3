import { type ComponentType, lazy } from 'react';

/** A component whose code loads on first use, with `preload()` to fetch it ahead. */
export type LazyComponent<P extends object> = ComponentType<P> & {
  /** Fetches the code; resolves once the component renders without waiting. */
  preload(): Promise<void>;
};

/**
 * A component loaded on first use (its own chunk). Until its code is here it renders as React.lazy
 * (suspending to the nearest Suspense); once loaded, by a first render or by `preload()`, it renders
 * at once. So code preloaded before React takes over a server-rendered page hydrates in the same pass
 * as the rest, with no boundary left to hydrate later.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>): LazyComponent<P> {
  let Loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const fetchCode = () => {
    loading ??= load().then(
      (component) => {
        Loaded = component;
        return component;
      },
      (error: unknown) => {
        // A failed download (offline) is tried again by the next use.
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const Lazy = lazy(async () => ({ default: await fetchCode() }));
  function LazyLoaded(props: P) {
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  }
  return Object.assign(LazyLoaded, { preload: () => fetchCode().then(() => undefined) });
}
