/** Code (or anything) fetched once: `get()` shares one download, `current()` is the value once here. */
export interface LoadOnce<T> {
  get(): Promise<T>;
  current(): T | undefined;
}

/** `load` run on the first `get()`; a failed download (offline) is tried again by the next. */
export function loadOnce<T>(load: () => Promise<T>): LoadOnce<T> {
  let value: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    get() {
      loading ??= load().then(
        (loaded) => {
          value = loaded;
          return loaded;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
    current: () => value,
  };
}
