import mysql from 'mysql2/promise';
import type { BackupCapability, DatabaseCredentials, SiteSpec } from '../../engine.ts';
import { purgePageCache } from './site-files.ts';
import { siteNames } from './site-names.ts';
import type { SiteState } from './site-state.ts';
import * as archives from './wordpress-archives.ts';
import { notSuspended, type SiteContext } from './wordpress-context.ts';
import { updateSiteAddress } from './wordpress-install.ts';

/** WordPress' stored home address. */
async function homeOf(database: DatabaseCredentials): Promise<string | undefined> {
  const connection = await mysql.createConnection({ ...database, connectTimeout: 5000 });
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>(
      "SELECT option_value FROM wp_options WHERE option_name = 'home'",
    );
    const value = rows[0]?.option_value;
    return typeof value === 'string' ? value : undefined;
  } finally {
    await connection.end();
  }
}

/**
 * A site's backups (wordpress-archives.ts writes and reads them), under the site's lock so a dump or a
 * restore never interleaves with a deploy of the same site; none while the site is suspended; a
 * restore drops the cached pages.
 */
export function siteBackups(
  ctx: Pick<
    SiteContext,
    'withSite' | 'requireState' | 'sandboxOf' | 'databaseOf' | 'mariadb' | 'databaseMb' | 'urlsOf'
  >,
  limits: { diskMb: number },
): BackupCapability<SiteSpec> {
  const { withSite, requireState } = ctx;

  function backupSite(state: SiteState): archives.BackupSite {
    return {
      sandbox: ctx.sandboxOf(state.id),
      database: ctx.databaseOf(state),
      tenant: siteNames(state.id).tenant,
      tenants: ctx.mariadb().tenants,
      databaseMb: ctx.databaseMb,
      maxArchiveBytes: limits.diskMb * 1024 * 1024,
    };
  }

  return {
    dump: (spec, archive, progress) =>
      withSite(spec.id, async () => {
        const state = await requireState(spec.id);
        notSuspended(state, 'creating backups');
        return archives.dumpSite(backupSite(state), archive, progress);
      }),

    restore: (spec, archive, facts, progress) =>
      withSite(spec.id, async () => {
        const state = await requireState(spec.id);
        notSuspended(state, 'restoring backups');
        await archives.restoreSite(backupSite(state), archive, facts, progress);
        // A backup brought to another machine (a recovery) names the address the site had there.
        const database = ctx.databaseOf(state);
        const restored = await homeOf(database);
        const { url } = ctx.urlsOf(state);
        if (restored && restored !== url) await updateSiteAddress(database, restored, url);
        await purgePageCache(ctx.sandboxOf(spec.id));
      }),
  };
}
