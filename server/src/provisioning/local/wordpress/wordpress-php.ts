import type { ServerHealth } from '../../driver.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import { type SitePhp, sitePhp } from './php-fpm.ts';
import { removeSpecialFiles } from './site-files.ts';
import type { SandboxSite } from './site-sandbox.ts';
import type { SiteState } from './site-state.ts';

/** The php-fpm of every site that is not suspended, one per site, each in the site's sandbox. */
export interface SitePhps {
  /** Starts (or restarts, on a PHP version or memory change) the site's php-fpm. */
  start(state: SiteState): Promise<void>;
  stop(id: string): Promise<void>;
  stopAll(): Promise<void>;
  /** Whether the site's php-fpm was started (and not stopped since). */
  has(id: string): boolean;
  /** All sites' php-fpm summed up in one entry. */
  health(): Promise<ServerHealth>;
}

export function sitePhps(
  root: string,
  sandboxOf: (id: string) => SandboxSite,
  log: (line: string) => void,
): SitePhps {
  const phps = new Map<string, SitePhp>();

  const stop = async (id: string): Promise<void> => {
    await phps.get(id)?.stop();
    phps.delete(id);
  };

  return {
    async start(state) {
      // Nothing but files, folders and links where the front door serves (a FIFO would block it).
      await removeSpecialFiles(sandboxOf(state.id));
      const memoryMb = (state.resources ?? DEFAULT_LIMITS).memoryMb;
      const current = phps.get(state.id);
      if (current && current.version === state.phpVersion && current.memoryMb === memoryMb)
        return current.start();
      await current?.stop();
      const php = sitePhp(root, sandboxOf(state.id), { version: state.phpVersion, memoryMb }, log);
      phps.set(state.id, php);
      await php.start();
    },

    stop,
    stopAll: async () => {
      await Promise.all([...phps.keys()].map((id) => stop(id)));
    },
    has: (id) => phps.has(id),

    async health() {
      const sites = await Promise.all(
        [...phps.entries()].map(async ([id, php]) => [id, await php.health()] as const),
      );
      const down = sites.filter(([, h]) => !h.ok);
      return {
        kind: 'local',
        state: down.length === 0 ? 'running' : 'failed',
        ok: down.length === 0,
        message: `${sites.length - down.length} of ${sites.length} sites running${down.length ? `; down: ${down.map(([id]) => id).join(', ')}` : ''}`,
      };
    },
  };
}
