import { cp, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Debian's WordPress; copied per site minus its /etc dispatcher config and translations. */
export const WORDPRESS_CORE = '/usr/share/wordpress';
const NOT_COPIED = new Set(
  ['wp-config.php', '.htaccess', 'wp-content/languages'].map((file) => `${WORDPRESS_CORE}/${file}`),
);

/**
 * Copies WordPress core into `dest` (which must not exist). fs.cp turns the package's relative symbolic
 * links (into /usr/share/php, /usr/share/javascript) into absolute ones, which still resolve from the
 * copy; `cp -a` would keep them relative and break them.
 */
export async function copyWordPressCore(dest: string): Promise<void> {
  await cp(WORDPRESS_CORE, dest, { recursive: true, filter: (source) => !NOT_COPIED.has(source) });
}

export interface CoreCopies {
  /** Starts preparing a spare copy in the background. */
  start(): void;
  /** Puts a fresh copy of core at `dest` (same file system as the data root): the spare, else a new copy. */
  take(dest: string): Promise<void>;
  /** Waits for a copy in progress. */
  stop(): Promise<void>;
}

/**
 * Copying core (~2,900 files, 56 MB) is most of a deploy on a busy disk, so one spare copy is kept ready
 * under `<root>/sites/.core-spare` and renamed into a new site; a new spare is made after each use. A
 * spare left from an earlier run is discarded at start (the package may have been upgraded since).
 */
export function coreCopies(root: string, log: (line: string) => void): CoreCopies {
  const spare = path.join(root, 'sites', '.core-spare');
  let refilling: Promise<void> | undefined;
  let stopped = false;

  function refill(fresh = false): void {
    if (refilling || stopped) return;
    refilling = (async () => {
      const partial = `${spare}.partial`;
      await rm(partial, { recursive: true, force: true });
      if (fresh) await rm(spare, { recursive: true, force: true });
      await copyWordPressCore(partial);
      await rename(partial, spare);
    })()
      .catch((error: Error) => log(`WordPress core spare copy failed: ${error.message}`))
      .finally(() => {
        refilling = undefined;
      });
  }

  async function takeSpare(dest: string): Promise<boolean> {
    try {
      await rename(spare, dest);
      return true;
    } catch {
      return false; // none ready (or another deploy took it)
    }
  }

  return {
    start() {
      stopped = false;
      refill(true);
    },
    async take(dest) {
      if (!(await takeSpare(dest))) {
        if (refilling) await refilling;
        if (!(await takeSpare(dest))) await copyWordPressCore(dest);
      }
      refill();
    },
    async stop() {
      stopped = true;
      await refilling;
    },
  };
}
