/**
 * Runs tasks one at a time per key (in the order they were asked for), tasks of different keys side by
 * side. A failed task does not stop the next one of its key. One process only: it orders work within
 * this server (a site's operations, Caddy reloads, useradd, SFTP login checks), not across servers.
 */
export type KeyedLock = <T>(key: string, task: () => Promise<T>) => Promise<T>;

export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const next = (tails.get(key) ?? Promise.resolve()).then(task, task);
    const settled = next.catch(() => {});
    tails.set(key, settled);
    settled.then(() => {
      if (tails.get(key) === settled) tails.delete(key);
    });
    return next;
  };
}
