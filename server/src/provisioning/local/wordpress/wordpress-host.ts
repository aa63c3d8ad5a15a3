import { type SftpAccount, verifySecret } from '../../apps/wordpress/sftp-server.ts';
import type { ControlGroups } from '../host/control-groups.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import { isRoot } from '../host/host.ts';
import { aptInstallLine, missingSitePackages } from '../host/host-packages.ts';
import { hostSeccompArch } from '../host/seccomp.ts';
import type { SiteDisks } from './site-disks.ts';
import { runWpCron, sweepPageCache } from './site-files.ts';
import { siteNames } from './site-names.ts';
import type { SandboxSite } from './site-sandbox.ts';
import { sandboxedSftp } from './site-sftp.ts';
import { listSiteStates } from './site-state.ts';
import type { SitePhps } from './wordpress-php.ts';

/**
 * The host-wide chores of the sites runtime (wordpress-runtime.ts): whether this host can run sites at
 * all, bringing every site back after a restart, the periodic upkeep, and SFTP logins.
 */

/** What the chores work with (the runtime's dependencies). */
interface SitesHost {
  root: string;
  log: (line: string) => void;
  phps: SitePhps;
  sandboxOf: (id: string) => SandboxSite;
}

/** Why WordPress sites cannot run on this host at all, if so (not root, no seccomp, missing packages). */
export function sitesMissingReason(): string | undefined {
  if (!isRoot())
    return 'WordPress sites need the server to run as root (each site runs as its own user in its own sandbox)';
  try {
    hostSeccompArch();
  } catch (error) {
    return (error as Error).message;
  }
  const missing = missingSitePackages();
  return missing.length > 0
    ? `WordPress needs the host packages ${missing.join(' ')}: ${aptInstallLine(missing)}`
    : undefined;
}

/**
 * The SFTP login check: a site's slug and SFTP password open a session in its sandbox, its writes
 * bounded by the site's disk (`diskMb`); none for a suspended site.
 */
export function sftpAccounts(
  host: Pick<SitesHost, 'root' | 'sandboxOf'>,
  diskMb: number,
): (user: string, password: string) => Promise<SftpAccount | undefined> {
  return async (user, password) => {
    const state = (await listSiteStates(host.root)).find((s) => siteNames(s.id).slug === user);
    if (!state || state.suspended || !(await verifySecret(password, state.sftpPasswordHash)))
      return undefined;
    return sandboxedSftp(host.sandboxOf(state.id), diskMb * 1024 * 1024);
  };
}

/** Every running site, one at a time: its due WordPress tasks (WP-Cron), then stale cached pages. */
export async function siteUpkeep(host: SitesHost): Promise<void> {
  const { root, log, phps } = host;
  for (const state of await listSiteStates(root)) {
    if (state.suspended || !phps.has(state.id) || !state.installed) continue;
    const sandbox = host.sandboxOf(state.id);
    const { memoryMb } = state.resources ?? DEFAULT_LIMITS;
    await runWpCron(sandbox, state.phpVersion, memoryMb).catch((error: Error) =>
      log(`wp-cron of ${state.id}: ${error.message}`),
    );
    await sweepPageCache(sandbox).catch((error: Error) =>
      log(`page cache sweep of ${state.id}: ${error.message}`),
    );
  }
}

/** After a restart: every site's disk mounted, the PHP of those not suspended running. */
export async function bringBackSites(
  host: Pick<SitesHost, 'root' | 'log' | 'phps'> & { disks: SiteDisks; groups: ControlGroups },
): Promise<void> {
  const { root, log, phps, disks } = host;
  const states = await listSiteStates(root);
  await Promise.all(
    states.map(async (state) => {
      try {
        if (!(await disks.mount(state.id))) throw new Error('its disk is missing');
        await host.groups.ensure(state.id, state.resources ?? DEFAULT_LIMITS);
        if (!state.suspended) await phps.start(state);
      } catch (error) {
        log(`site ${state.id} did not come back: ${(error as Error).message}`);
      }
    }),
  );
}
