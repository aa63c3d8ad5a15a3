import { phpCli } from '../host/php.ts';
import { shell, WRITE_FILE } from '../host/sandbox-process.ts';
import {
  CACHE_PATH,
  CACHE_USAGE_PATH,
  MAX_AGE_MINUTES,
  type PageCacheLimits,
  PLUGIN_PATH,
  pageCachePlugin,
} from './page-cache.ts';
import { phpSettings } from './php-fpm.ts';
import { INSIDE, runInSandbox, type SandboxSite } from './site-sandbox.ts';

/**
 * What the driver writes or removes in a site's files: always as the site user in its sandbox (never as
 * root on a path the customer controls), writing through mktemp names renamed into place.
 */

/** wp-config.php (mode 600: only the site's PHP reads it). */
export async function writeWpConfig(site: SandboxSite, text: string): Promise<void> {
  await runInSandbox(site, shell(WRITE_FILE, `${INSIDE.public}/wp-config.php`, '600'), { input: text });
}

/** Installs (or updates) the page cache plugin (with every site's limits unless told otherwise). */
export async function installPageCache(site: SandboxSite, limits?: PageCacheLimits): Promise<void> {
  await runInSandbox(
    site,
    shell(`mkdir -p "$(dirname "$1")"\n${WRITE_FILE}`, `${INSIDE.public}/${PLUGIN_PATH}`, '644'),
    { input: pageCachePlugin(limits) },
  );
}

/**
 * Removes every FIFO, socket and device node from public/, where the front door serves files: Caddy's
 * file server opens whatever it finds, and open() on a FIFO blocks its thread for good. The sandbox's
 * seccomp filter lets no new one be made; this clears what a site made before it existed (run before
 * the site's PHP starts). `find -type` reads only the entry (lstat), never opens it.
 */
export async function removeSpecialFiles(site: SandboxSite): Promise<void> {
  await runInSandbox(site, shell('find "$1" -xdev ! -type f ! -type d ! -type l -delete', INSIDE.public));
}

/** Clears the page cache (after changes made outside WordPress: the address, a restore). */
export async function purgePageCache(site: SandboxSite): Promise<void> {
  await runInSandbox(
    site,
    shell('rm -rf "$1" "$2"', `${INSIDE.public}/${CACHE_PATH}`, `${INSIDE.public}/${CACHE_USAGE_PATH}`),
  );
}

/**
 * Runs WordPress' due scheduled tasks (scheduled posts among them) with the site's PHP settings: what
 * WP-Cron's loopback request would do, which the sandbox's missing network rules out.
 */
export async function runWpCron(site: SandboxSite, phpVersion: string, memoryMb: number): Promise<void> {
  const settings = Object.entries(phpSettings(memoryMb)).flatMap(([name, value]) => [
    '-d',
    `${name}=${value}`,
  ]);
  await runInSandbox(site, [phpCli(phpVersion), ...settings, `${INSIDE.public}/wp-cron.php`], {
    view: 'php',
    timeoutMs: 120_000,
  });
}

/**
 * Removes cached pages older than MAX_AGE_MINUTES (changes WordPress never heard of show then), files a
 * killed render left half-written, the folders that leaves empty, and the plugin's count of the cache
 * (it recounts the files at its next write).
 */
export async function sweepPageCache(site: SandboxSite): Promise<void> {
  await runInSandbox(
    site,
    shell(
      [
        '[ -d "$1" ] || exit 0',
        `find "$1" -type f \\( -name index.html -o -name '.index.html.*' \\) -mmin +${MAX_AGE_MINUTES} -delete`,
        'find "$1" -mindepth 1 -type d -empty -delete',
        'rm -f "$2"',
      ].join('\n'),
      `${INSIDE.public}/${CACHE_PATH}`,
      `${INSIDE.public}/${CACHE_USAGE_PATH}`,
    ),
  );
}
