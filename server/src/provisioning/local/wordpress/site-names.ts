import path from 'node:path';
import { type TenantNames, tenantNames } from '../../tenant-names.ts';

/** What a site is called on the host, all derived from the instance id (so a lost state file loses nothing). */
export interface SiteNames {
  id: string;
  /** The id without '-', first 12 characters: [a-z0-9]. */
  key: string;
  /** First label of the temporary URL and the SFTP login. */
  slug: string;
  /** The site's OS user, `wp_<key>` (under the 32-character limit). */
  unixUser: string;
  /** The tenant database and its user (the same names as a MySQL instance would get). */
  tenant: TenantNames;
}

export function siteNames(id: string): SiteNames {
  const tenant = tenantNames(id); // validates the id: [a-z0-9-]{1,50}
  const key = id.replaceAll('-', '').slice(0, 12);
  return { id, key, slug: key, unixUser: `wp_${key}`, tenant };
}

/** Where a site lives under the data root. */
export function sitePaths(root: string, id: string) {
  const dir = path.join(root, 'sites', id);
  return {
    /** The site directory (owner: the site user; group: the front door's; 750): the SFTP root. */
    dir,
    /** WordPress: core copied from Debian's package, wp-content, wp-config.php (600). */
    public: path.join(dir, 'public'),
    wpConfig: path.join(dir, 'public', 'wp-config.php'),
    /** PHP uploads and sessions. */
    tmp: path.join(dir, 'tmp'),
    /** php-error.log. */
    logs: path.join(dir, 'logs'),
    /** What the driver knows of the site (root, 600), outside the site so SFTP cannot reach it. */
    stateFile: path.join(root, 'site-state', `${id}.json`),
    /** Backups (root, 700), outside the site. */
    backups: path.join(root, 'backups', id),
  };
}
