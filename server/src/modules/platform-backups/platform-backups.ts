import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { BackupVault, StoredPart } from '../../backup-storage/backup-vault.ts';
import { runClient } from '../../lib/run-client.ts';

/**
 * Backups of Berth's own database (accounts, subscriptions, invoices, tickets, the affiliate ledger,
 * instances and their encrypted secrets): `pg_dump -Fc` of the platform database (the embedded
 * PostgreSQL 15 or DATABASE_URL; Debian's pg_dump 15 matches the embedded server), daily, into the same
 * storage as instances' backups under `platform/<id>/`, with their own retention. The job queue's
 * schema is left out (jobs in flight are not worth bringing back; a recovery schedules its own). Storage
 * alone lists them (a manifest beside each dump), since a recovery starts on a machine without the
 * database.
 */

const PG_DUMP = '/usr/lib/postgresql/15/bin/pg_dump';
export const PG_RESTORE = '/usr/lib/postgresql/15/bin/pg_restore';
const DUMP_PART = 'platform.pgdump';
const PREFIX = 'platform/';

export interface PlatformBackup {
  id: string;
  createdAt: string;
  size: number;
  parts: StoredPart[];
}

/** libpq's environment for a postgres:// URL (the password never in argv). */
function libpqEnv(url: string): Record<string, string> {
  const u = new URL(url);
  return {
    PATH: '/usr/bin:/bin',
    PGHOST: decodeURIComponent(u.hostname),
    PGPORT: u.port || '5432',
    PGUSER: decodeURIComponent(u.username),
    PGPASSWORD: decodeURIComponent(u.password),
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
    ...(u.searchParams.get('sslmode') && { PGSSLMODE: u.searchParams.get('sslmode') ?? '' }),
  };
}

const idAt = (at: Date) =>
  `p-${at.toISOString().replace(/[-:.]/g, '').toLowerCase()}-${randomBytes(3).toString('hex')}`;
const manifestOf = (id: string) => `${PREFIX}${id}/manifest.json.enc`;

export function platformBackups(options: { vault: BackupVault; databaseUrl: string; now: () => Date }) {
  const { vault, databaseUrl, now } = options;

  async function list(): Promise<PlatformBackup[]> {
    const keys = (await vault.store.list(PREFIX)).filter((key) => key.endsWith('/manifest.json.enc'));
    // Each manifest must be the one written at its key (the id its key is made of).
    const found = await Promise.all(
      keys.map(
        async (key) =>
          (await vault.getJson(key, {
            id: key.slice(PREFIX.length, -'/manifest.json.enc'.length),
          })) as PlatformBackup,
      ),
    );
    return found.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  return {
    list,

    /** Dumps the platform database into storage now; answers the backup. */
    async create(): Promise<PlatformBackup> {
      const at = now();
      const id = idAt(at);
      const { archive, parts } = vault.writer(`${PREFIX}${id}`);
      const out = new PassThrough();
      await Promise.all([
        archive.part(DUMP_PART, out),
        runClient(PG_DUMP, ['-Fc', '--exclude-schema=graphile_worker', '--no-owner'], libpqEnv(databaseUrl), {
          output: out,
        }).catch((error: unknown) => {
          out.destroy(error as Error);
          throw error;
        }),
      ]);
      const backup: PlatformBackup = {
        id,
        createdAt: at.toISOString(),
        size: parts.reduce((sum, p) => sum + p.size, 0),
        parts,
      };
      await vault.putJson(manifestOf(id), backup);
      return backup;
    },

    /** Removes the ones older than `days`, always keeping the newest; answers their ids. */
    async applyRetention(days: number): Promise<string[]> {
      const all = await list();
      const cutoff = now().getTime() - days * 86_400_000;
      const expired = all.slice(1).filter((b) => Date.parse(b.createdAt) < cutoff);
      for (const backup of expired)
        await vault.remove(`${PREFIX}${backup.id}`, backup.parts, [manifestOf(backup.id)]);
      return expired.map((b) => b.id);
    },

    /** Loads a backup into the (empty) database at `targetUrl` with pg_restore. */
    async restoreInto(backup: PlatformBackup, targetUrl: string): Promise<void> {
      const opened = await vault.open(`${PREFIX}${backup.id}`, backup.parts);
      try {
        await runClient(
          PG_RESTORE,
          [
            '--no-owner',
            '--no-privileges',
            '--single-transaction',
            '--exit-on-error',
            '-d',
            libpqEnv(targetUrl).PGDATABASE ?? '',
          ],
          libpqEnv(targetUrl),
          { input: opened.archive.part(DUMP_PART) },
        );
      } finally {
        await opened.close();
      }
    },
  };
}

export type PlatformBackups = ReturnType<typeof platformBackups>;

/**
 * One look at Berth's own backups (every few minutes, from the server's background work): once the
 * day's time (UTC) has passed and the newest backup is older than it, a new one is made; those past
 * their days go.
 */
export async function platformBackupRound(
  vault: BackupVault,
  databaseUrl: string,
  settings: { platformDays: number; platformMinute: number },
  now: () => Date,
  log: (line: string) => void,
): Promise<void> {
  const backups = platformBackups({ vault, databaseUrl, now });
  const at = now();
  const slot = new Date(
    Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()) + settings.platformMinute * 60_000,
  );
  if (at < slot) return;
  const newest = (await backups.list())[0];
  if (newest && Date.parse(newest.createdAt) >= slot.getTime()) return;
  const made = await backups.create();
  const removed = await backups.applyRetention(settings.platformDays);
  log(
    `backups: Berth's database backed up as ${made.id} (${made.size} bytes); ${removed.length} older removed`,
  );
}
