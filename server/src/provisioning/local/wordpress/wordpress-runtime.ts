import path from 'node:path';
import { ConflictError } from '../../../lib/errors.ts';
import { type IntervalTask, startIntervalTask } from '../../../lib/interval-task.ts';
import { createSftpServer, type SftpServer } from '../../apps/wordpress/sftp-server.ts';
import type { ServerHealth } from '../../driver.ts';
import { type Capability, unavailable } from '../../instance-types.ts';
import type { EngineServer } from '../databases/engine-server.ts';
import type { FrontDoor } from '../front-door/front-door.ts';
import type { ControlGroups } from '../host/control-groups.ts';
import { ownedDir } from '../host/host.ts';
import { installedPhpVersions } from '../host/php.ts';
import type { SiteDisks } from './site-disks.ts';
import type { SandboxSite } from './site-sandbox.ts';
import { chooseSftpPort } from './site-sftp.ts';
import { listSiteStates } from './site-state.ts';
import { bringBackSites, sftpAccounts, sitesMissingReason, siteUpkeep } from './wordpress-host.ts';
import type { SitePhps } from './wordpress-php.ts';

export interface SitesRuntimeDeps {
  root: string;
  log: (line: string) => void;
  front: FrontDoor;
  disks: SiteDisks;
  phps: SitePhps;
  groups: ControlGroups;
  sandboxOf: (id: string) => SandboxSite;
  /** The MariaDB server tenants live on, once started; undefined when MySQL is unavailable. */
  mariadb: () => EngineServer | undefined;
}

export interface SitesRuntimeOptions {
  listenHost: string;
  /** SFTP port; default remembered, else 2222 when free, else a free high port. */
  sftpPort: number | undefined;
  /** Each site's disk size in MiB: the most an SFTP session may write. */
  diskMb: number;
  upkeepEveryMs: number;
}

/**
 * What the sites need running on the host as a whole: the folders, every site's disk, the php-fpm of
 * each site that is not suspended, the SFTP server (a site's slug and SFTP password open a session in
 * its sandbox) and the periodic upkeep. The front door (Caddy) is the local driver's, started by it
 * once the sites are back. Also says whether sites can be deployed here (capability) and how those
 * services are (health). The host-wide chores themselves are in wordpress-host.ts.
 */
export function sitesRuntime(deps: SitesRuntimeDeps, options: SitesRuntimeOptions) {
  const { root, log, front, disks, phps } = deps;
  let sftp: SftpServer | undefined;
  let sftpPort = 0;
  let upkeep: IntervalTask | undefined;
  let started = false;
  let startError: string | undefined;

  async function health(): Promise<Record<string, ServerHealth>> {
    const entries: [string, ServerHealth][] = [];
    if (sftp) {
      const ok = sftp.listening();
      entries.push(['sftp', { kind: 'local', state: ok ? 'running' : 'stopped', ok, port: sftpPort }]);
    }
    // One php-fpm per site (sites that are not suspended): summed up in one entry.
    entries.push(['php-fpm', await phps.health()]);
    return Object.fromEntries(entries);
  }

  return {
    health,
    ready: () => started && front.running(),
    phpVersions: () => installedPhpVersions(),

    /** The SFTP server and its port while sites are available; a ConflictError saying why not otherwise. */
    runningSftp(): { server: SftpServer; port: number } {
      if (!started || !sftp || !front.running()) {
        throw new ConflictError(
          `WordPress sites are not available: ${startError ?? sitesMissingReason() ?? 'not started'}`,
        );
      }
      return { server: sftp, port: sftpPort };
    },

    async start(): Promise<void> {
      if (started) return;
      const missing = sitesMissingReason();
      if (missing) {
        startError = missing;
        log(missing);
        return;
      }
      try {
        for (const dir of ['sites', 'sandbox']) await ownedDir(path.join(root, dir), undefined, 0o711);
        for (const dir of ['site-state', 'backups', 'sftp', 'disks'])
          await ownedDir(path.join(root, dir), undefined, 0o700);
        disks.start();
        await bringBackSites(deps);
        sftpPort = await chooseSftpPort(root, options.listenHost, options.sftpPort);
        sftp = createSftpServer({
          host: options.listenHost,
          port: sftpPort,
          hostKeyFile: path.join(root, 'sftp', 'host_key'),
          authenticate: sftpAccounts(deps, options.diskMb),
          log,
        });
        await sftp.start();
        upkeep = startIntervalTask('site upkeep', options.upkeepEveryMs, () => siteUpkeep(deps), log);
        started = true;
        startError = undefined;
      } catch (error) {
        started = false;
        // The raw error (paths, program output) is for the log; customers see that it failed.
        log(`WordPress sites did not start: ${(error as Error).message}`);
        startError = 'WordPress sites could not start on this server (the server log says why)';
      }
    },

    async stop(): Promise<void> {
      started = false;
      await upkeep?.stop();
      upkeep = undefined;
      await disks.stop();
      await sftp?.stop();
      sftp = undefined;
      await phps.stopAll();
      for (const state of await listSiteStates(root)) {
        await disks
          .unmount(state.id)
          .catch((error: Error) => log(`unmount of ${state.id}: ${error.message}`));
      }
    },

    async capability(): Promise<Capability> {
      const missing = sitesMissingReason();
      if (missing) return unavailable.notOffered('wordpress', missing);
      if (installedPhpVersions().length === 0)
        return unavailable.notOffered('wordpress', 'No PHP version with php-fpm is installed');
      const server = deps.mariadb();
      if (!server) {
        const detail = 'WordPress needs MySQL (MariaDB), which is not available';
        return started ? unavailable.down('wordpress', detail) : unavailable.settingUp('wordpress', detail);
      }
      if (!server.socket)
        return unavailable.notOffered(
          'wordpress',
          'WordPress sites need the MariaDB server the driver runs (an external one is not reachable from the site sandboxes)',
        );
      if (!started)
        return startError
          ? unavailable.down('wordpress', startError)
          : unavailable.settingUp('wordpress', 'The provisioning driver is not started');
      if (!front.running()) return unavailable.down('wordpress', 'The front door (Caddy) is not running');
      const down = Object.entries(await health()).filter(([name, h]) => name !== 'php-fpm' && !h.ok);
      if (down.length > 0) {
        return unavailable.down(
          'wordpress',
          `Not running: ${down.map(([name, h]) => `${name} (${h.message ?? h.state})`).join(', ')}`,
        );
      }
      return { available: true };
    },
  };
}
