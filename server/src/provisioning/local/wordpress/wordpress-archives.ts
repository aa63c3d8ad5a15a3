import { capped, pipePart } from '../../archive-parts.ts';
import { dumpMysql, loadMysql, mysqlTableCount } from '../../database-dumps.ts';
import type {
  ArchiveReader,
  ArchiveWriter,
  BackupFacts,
  BackupProgress,
  DatabaseCredentials,
} from '../../engine.ts';
import type { TenantNames } from '../../tenant-names.ts';
import type { TenantOps } from '../databases/engine-server.ts';
import { shell, WRITE_FILE } from '../host/sandbox-process.ts';
import { CACHE_PATH } from './page-cache.ts';
import { INSIDE, runInSandbox, type SandboxSite } from './site-sandbox.ts';

/**
 * A WordPress site's backup, as two archive parts: the tenant database dumped with the tenant's own
 * credentials (mariadb-dump, gzip) and wp-content as a tar.gz (core is reproducible, wp-config
 * regenerated). Where the parts are stored, encrypted and checked is the platform's (server/src/backup-storage/).
 *
 * Root never opens a path in the site: `tar` reads wp-content (and, on restore, writes it) as the site
 * user inside the site's sandbox, streaming the archive through a pipe.
 */

const DB_PART = 'db.sql.gz';
const FILES_PART = 'files.tar.gz';

export interface BackupSite {
  /** The site's sandbox: where its files are read and written, as its user. */
  sandbox: SandboxSite;
  database: DatabaseCredentials;
  tenant: TenantNames;
  tenants: TenantOps;
  /** Size of the site's database when a restore makes it anew, MiB. */
  databaseMb: number;
  /** The largest archive of the site's files accepted (its disk size: nothing larger can be real). */
  maxArchiveBytes: number;
}

export async function dumpSite(
  site: BackupSite,
  archive: ArchiveWriter,
  progress: BackupProgress = () => {},
): Promise<BackupFacts> {
  const tables = await mysqlTableCount(site.database);
  progress('Dumping the database');
  await dumpMysql(site.database, archive, DB_PART);
  progress('Copying the files');
  // --sparse: holes are recorded, not read as gigabytes of zeros.
  const limit = capped(site.maxArchiveBytes, "The site's files are larger than its storage");
  await pipePart(archive, FILES_PART, limit, () =>
    runInSandbox(
      site.sandbox,
      ['/usr/bin/tar', '--sparse', `--exclude=${CACHE_PATH}`, '-czf', '-', '-C', INSIDE.public, 'wp-content'],
      { output: limit, timeoutMs: 6 * 3_600_000 },
    ),
  );
  return { tables };
}

/**
 * Exact restore: the site shows WordPress' maintenance notice meanwhile; wp-content is unpacked beside
 * the live one (as the site user), the database is dropped and recreated (tables added since the backup
 * disappear) and loaded from the dump, wp-content is swapped for the archived one; then the table count
 * is checked against the backup's.
 */
export async function restoreSite(
  site: BackupSite,
  archive: ArchiveReader,
  facts: BackupFacts,
  progress: BackupProgress = () => {},
): Promise<void> {
  // In the sandbox, as the site user: the maintenance notice, the archive unpacked in the site's tmp/
  // (same disk as public/, so the swap is a rename), the swap, the clean-up.
  const work = `${INSIDE.disk}/tmp/.berth-restore`;
  const publicDir = `${INSIDE.disk}/public`;
  progress('Unpacking the files');
  await runInSandbox(
    site.sandbox,
    shell(
      `rm -rf "$2"; mkdir -m 700 "$2"
tar -xzf - -C "$2" --no-same-owner
test -d "$2/wp-content" || { echo "the backup holds no wp-content" >&2; exit 3; }
printf '%s\\n' '<?php $upgrading = time();' | { set -- "$1/.maintenance" 644; ${WRITE_FILE}; }`,
      publicDir,
      work,
    ),
    {
      input: archive
        .part(FILES_PART)
        .pipe(capped(site.maxArchiveBytes, 'The archive is larger than the site storage')),
      timeoutMs: 6 * 3_600_000,
    },
  );
  try {
    progress('Loading the database');
    await site.tenants.delete(site.tenant);
    await site.tenants.create(site.tenant, site.database.password, site.databaseMb);
    await loadMysql(site.database, archive, DB_PART);
    progress('Swapping the files');
    await runInSandbox(
      site.sandbox,
      shell(
        `if [ -e "$1/wp-content" ] || [ -L "$1/wp-content" ]; then mv "$1/wp-content" "$2/wp-content.old"; fi
mv "$2/wp-content" "$1/wp-content"`,
        publicDir,
        work,
      ),
    );
    const tables = await mysqlTableCount(site.database);
    if (tables !== facts.tables) {
      throw new Error(`Restore incomplete: ${tables} tables, the backup had ${facts.tables}`);
    }
  } finally {
    await runInSandbox(site.sandbox, shell('rm -rf "$2"; rm -f "$1/.maintenance"', publicDir, work));
  }
}
