import { type ComponentType, lazy } from 'react';
import { loadOnce } from './load-once.ts';

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
  const code = loadOnce(load);
  const Lazy = lazy(async () => ({ default: await code.get() }));
  function LazyLoaded(props: P) {
    const Loaded = code.current();
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  }
  return Object.assign(LazyLoaded, { preload: () => code.get().then(() => undefined) });
}
