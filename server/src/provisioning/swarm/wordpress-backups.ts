import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { pipePart } from '../archive-parts.ts';
import { DUMP_WATCH, LOAD_WATCH, MARIADB_DUMP_OPTIONS } from '../database-dumps.ts';
import type { ArchiveReader, BackupCapability, SiteSpec } from '../engine.ts';
import { FLAVORS } from './database-flavors.ts';
import { execIn, type HelperSpec, type RunningContainer, runHelper, runningContainer } from './node-exec.ts';
import { instanceNames, LABEL } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import { dumpVolume, restoreVolume, type VolumeArchive } from './volume-archives.ts';
import type { WebState } from './web-instance.ts';

/**
 * Backups of a WordPress site on a swarm (wordpress-engine.ts), in the local driver's two parts: the
 * database dumped with the site's own database login, and wp-content as a tar.gz. Both run in helper
 * containers on the site's node (node-exec.ts `runHelper`), never in the site's own container: there its
 * PHP could see, stop or trace them. The files' helper runs as www-data with the volume read-only (a
 * restore: writable) and no network, `tar --sparse` (a hole is not read as gigabytes of zeros), its
 * output capped at the site's disk size; the database's joins the site's private network as a client
 * only. Every transfer has a deadline (no progress for 2 minutes fails it, and the job goes on).
 */

const DB_PART = 'db.sql.gz';
const FILES_PART = 'files.tar.gz';
const WWW = '33:33';
const NOBODY = '65534:65534';

/**
 * A shell that reads the database password from its first line of stdin (never argv, never the
 * container's environment in `docker inspect`), then runs `script` with it in MYSQL_PWD.
 */
const withPassword = (script: string) => [
  'bash',
  '-o',
  'pipefail',
  '-ec',
  `IFS= read -r MYSQL_PWD; export MYSQL_PWD; ${script}`,
];

/** The password line, then `rest` (a load's SQL). */
function passwordFirst(password: string, rest?: Readable): Readable {
  const out = new PassThrough();
  out.write(`${password}\n`);
  if (!rest) out.end();
  else {
    rest.on('error', (error) => out.destroy(error));
    rest.pipe(out);
  }
  return out;
}

/** Reads a gzipped part as its raw bytes; a failed read fails the stream (a restore then stops). */
function gunzipped(archive: ArchiveReader, name: string): Readable {
  const stored = archive.part(name);
  const gunzip = createGunzip();
  stored.on('error', (error) => gunzip.destroy(error));
  return stored.pipe(gunzip);
}

export function wordpressBackups(
  ctx: SwarmContext,
  requireState: (id: string) => Promise<WebState>,
): BackupCapability<SiteSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);
  const maxArchiveBytes = () => ctx.options.disks.wordpress * 1024 * 1024;

  /** The site's database service and its node's engine (helpers run beside its volumes). */
  async function targets(id: string) {
    const state = await requireState(id);
    const names = instanceNames(id);
    const db = await runningContainer(state.region, names.dbService);
    return { state, names, db };
  }

  const helper = (id: string, spec: Omit<HelperSpec, 'labels'>): HelperSpec => ({
    ...spec,
    labels: { [LABEL.instance]: id, [LABEL.role]: 'backup-helper' },
  });

  /** The site database's tables, counted with its own login inside its server's container. */
  async function tables(db: RunningContainer, password: string): Promise<number> {
    const out = await execIn(
      db,
      withPassword(
        'exec mariadb --no-defaults -h 127.0.0.1 -u wordpress -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()" wordpress',
      ),
      {
        user: NOBODY,
        stdin: passwordFirst(password),
        watch: { what: "Counting the site's tables", stallMs: 60_000 },
      },
    );
    return Number(out.trim());
  }

  /** wp-content as an archive part (volume-archives.ts), as www-data beside the site's volume. */
  const files = (id: string, db: RunningContainer): VolumeArchive => ({
    engine: db.engine,
    instanceId: id,
    volume: instanceNames(id).volume('content'),
    image: ctx.image('wordpress'),
    user: WWW,
    member: 'wp-content',
    part: FILES_PART,
    maxBytes: maxArchiveBytes(),
    what: "The site's files",
    stallMs: ctx.options.backupStallMs,
  });

  const password = (spec: SiteSpec) => {
    if (spec.databasePassword === undefined)
      throw new Error(`The database password of ${spec.id} is unknown`);
    return spec.databasePassword;
  };

  return {
    dump: (spec, archive, progress) =>
      withLock(spec.id, async () => {
        const { names, db } = await targets(spec.id);
        const count = await tables(db, password(spec));
        progress?.('Dumping the database');
        const dump = new PassThrough();
        await pipePart(archive, DB_PART, dump, () =>
          runHelper(
            db.engine,
            helper(spec.id, {
              image: ctx.image('mariadb'),
              user: NOBODY,
              network: names.network,
              cmd: withPassword(
                `mariadb-dump --no-defaults -h "$1" -u wordpress ${MARIADB_DUMP_OPTIONS.join(' ')} wordpress | gzip -c`,
              ).concat('dump', names.dbService),
            }),
            {
              stdin: passwordFirst(password(spec)),
              stdout: dump,
              watch: { ...DUMP_WATCH, stallMs: ctx.options.backupStallMs },
            },
          ),
        );
        progress?.('Copying the files');
        await dumpVolume(files(spec.id, db), archive);
        return { tables: count };
      }),

    restore: (spec, archive, facts, progress) =>
      withLock(spec.id, async () => {
        const { names, db } = await targets(spec.id);
        progress?.('Loading the database');
        const recreate = FLAVORS.mysql.recreate('wordpress', 'wordpress');
        await execIn(db, recreate.cmd, {
          user: recreate.user,
          env: recreate.env,
          watch: { what: "Preparing the site's database", stallMs: 60_000 },
        });
        await runHelper(
          db.engine,
          helper(spec.id, {
            image: ctx.image('mariadb'),
            user: NOBODY,
            network: names.network,
            cmd: withPassword('exec mariadb --no-defaults -h "$1" -u wordpress wordpress').concat(
              'load',
              names.dbService,
            ),
          }),
          { stdin: passwordFirst(password(spec), gunzipped(archive, DB_PART)), watch: LOAD_WATCH },
        );
        progress?.('Restoring files');
        await restoreVolume(files(spec.id, db), archive);
        const count = await tables(db, password(spec));
        if (count !== facts.tables) {
          throw new Error(`Restore incomplete: ${count} tables, the backup had ${facts.tables}`);
        }
      }),
  };
}
