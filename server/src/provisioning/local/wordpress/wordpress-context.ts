import { ConflictError, NotFoundError } from '../../../lib/errors.ts';
import type { KeyedLock } from '../../../lib/keyed-lock.ts';
import type { SftpServer } from '../../apps/wordpress/sftp-server.ts';
import type { DatabaseCredentials, SiteUrls } from '../../engine.ts';
import type { CaddySite } from '../../front-door/caddy-config.ts';
import type { EngineServer } from '../databases/engine-server.ts';
import type { FrontDoor } from '../front-door/front-door.ts';
import type { ControlGroups } from '../host/control-groups.ts';
import { type OsUser, systemUser } from '../host/host.ts';
import { wordpressHandler } from './caddy-routes.ts';
import { phpSocket } from './php-fpm.ts';
import type { SiteDisks } from './site-disks.ts';
import { siteNames, sitePaths } from './site-names.ts';
import { INSIDE, type SandboxSite, sandboxEtcDir } from './site-sandbox.ts';
import { listSiteStates, readSiteState, type SiteState } from './site-state.ts';
import type { SitePhps } from './wordpress-php.ts';
import { wpConfig } from './wp-config.ts';

/**
 * What the WordPress site operations share: where sites live, the front door, the disks, the php-fpm
 * of each site, and how a site's state turns into its sandbox, database login, addresses and
 * wp-config.php. Each operation file (wordpress-lifecycle.ts, wordpress-suspension.ts,
 * wordpress-domains.ts, wordpress-backups.ts) takes only the parts it uses.
 */
export interface SiteContext {
  root: string;
  log: (line: string) => void;
  front: FrontDoor;
  disks: SiteDisks;
  phps: SitePhps;
  /** Each site's control group (its memory and CPU), named by its id. */
  groups: ControlGroups;
  /** Operations on one site run one at a time (keyed on the instance id). */
  withSite: KeyedLock;
  /** The running SFTP server and its port; a ConflictError when sites are not available. */
  runningSftp(): { server: SftpServer; port: number };
  /** The MariaDB server the tenants live on; a ConflictError when it is not available. */
  mariadb(): EngineServer;
  /** Size of a new site's database, MiB (SITES_DATABASE_MB). */
  databaseMb: number;
  /** The site's state; a NotFoundError when there is no such site. */
  requireState(id: string): Promise<SiteState>;
  /** The sandbox the site's programs run in, as its own user (looked up unless given). */
  sandboxOf(id: string, user?: OsUser): SandboxSite;
  databaseOf(state: SiteState): DatabaseCredentials;
  urlsOf(state: SiteState): SiteUrls;
  /** The site's wp-config.php as its state says now. */
  siteConfig(state: SiteState): string;
  /** Every site as Caddy should route it now (the front door's routes of the WordPress engine). */
  caddySites(): Promise<CaddySite[]>;
  /** Loads the front door with every route as the state files say now (optionally edited). */
  reloadFront(edit?: (sites: CaddySite[]) => CaddySite[]): Promise<void>;
}

/** The state-derived helpers of SiteContext, built from what the sites are configured with. */
export function siteHelpers(
  root: string,
  front: FrontDoor,
  deps: { mariadb: () => EngineServer | undefined; groups: ControlGroups },
): Pick<
  SiteContext,
  | 'mariadb'
  | 'requireState'
  | 'sandboxOf'
  | 'databaseOf'
  | 'urlsOf'
  | 'siteConfig'
  | 'caddySites'
  | 'reloadFront'
> {
  function mariadb(): EngineServer {
    const server = deps.mariadb();
    if (!server) throw new ConflictError('WordPress sites need the MariaDB server, which is not available');
    return server;
  }

  const urlsOf = (state: SiteState): SiteUrls => front.urls(siteNames(state.id).slug, state.domain);

  function databaseOf(state: SiteState): DatabaseCredentials {
    const { host, port } = mariadb().endpoint();
    const { tenant } = siteNames(state.id);
    return { host, port, database: tenant.database, user: tenant.user, password: state.databasePassword };
  }

  async function caddySites(): Promise<CaddySite[]> {
    return (await listSiteStates(root)).map((state) => ({
      id: state.id,
      temporaryHost: front.temporaryHost(siteNames(state.id).slug),
      domain: state.domain,
      suspended: state.suspended,
      handler: wordpressHandler({
        publicDir: sitePaths(root, state.id).public,
        phpSocket: phpSocket(sitePaths(root, state.id).dir),
      }),
    }));
  }

  return {
    mariadb,
    urlsOf,
    databaseOf,
    caddySites,
    reloadFront: (edit) => front.reload(edit),

    async requireState(id) {
      const state = await readSiteState(root, siteNames(id).id);
      if (!state) throw new NotFoundError('Site not found');
      return state;
    },

    sandboxOf(id, user) {
      const { key, unixUser } = siteNames(id);
      const owner = user ?? systemUser(unixUser);
      if (!owner) throw new Error(`The OS user of site ${id} is missing`);
      return {
        key,
        user: owner,
        disk: sitePaths(root, id).dir,
        etcDir: sandboxEtcDir(root, key),
        mysqlSocket: mariadb().socket,
        joins: deps.groups.joins(id),
      };
    },

    siteConfig(state) {
      const urls = urlsOf(state);
      return wpConfig({
        dbHost: `localhost:${INSIDE.mysqlSocket}`,
        database: databaseOf(state),
        salts: state.salts,
        temporary: state.domain
          ? { host: new URL(urls.temporaryUrl).host, url: urls.temporaryUrl }
          : undefined,
      });
    },
  };
}

/** Refuses an operation on a suspended site. */
export function notSuspended(state: SiteState, what: string): void {
  if (state.suspended) throw new ConflictError(`The site is suspended: ${what} is disabled`);
}
