import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { runClient } from '../lib/run-client.ts';
import { pipePart } from './archive-parts.ts';
import type { ArchiveReader, ArchiveWriter, DatabaseCredentials } from './engine.ts';

/**
 * Dumps and loads of tenant databases, always with the tenant's own login (its password in the
 * environment, never in argv): a dump holds only what the tenant may read, and a load runs with only the
 * tenant's rights, whatever the archive says. MySQL: `mariadb-dump --single-transaction` gzipped;
 * PostgreSQL: `pg_dump -Fc` (compressed by itself), loaded by `pg_restore` without owners, privileges or
 * tablespaces (the database's own tablespace, on its disk, takes everything).
 */

/** How long a dump may make no progress, and a load (an index build reads nothing for a while). */
export const DUMP_WATCH = { what: 'The database dump' };
export const LOAD_WATCH = { what: 'Loading the database', stallMs: 15 * 60_000 };
/** A table count is one quick query: a tenant's lock must not hold it. */
const COUNT_TIMEOUT_MS = 60_000;
const PG_RESTORE = '/usr/lib/postgresql/15/bin/pg_restore';

const mysqlEnv = (database: DatabaseCredentials) => ({ PATH: '/usr/bin:/bin', MYSQL_PWD: database.password });
/** A host that is a path is the server's socket (an instance's own server: instance-servers.ts). */
const mysqlArgs = (database: DatabaseCredentials) => [
  '--no-defaults',
  ...(database.host.startsWith('/')
    ? ['--protocol=SOCKET', `--socket=${database.host}`]
    : ['--protocol=TCP', `--host=${database.host}`, `--port=${database.port}`]),
  `--user=${database.user}`,
];

/** The tenant database's table count (what a restore must bring back). */
export async function mysqlTableCount(database: DatabaseCredentials): Promise<number> {
  const { host, ...login } = database;
  const connection = await mysql.createConnection({
    ...login,
    ...(host.startsWith('/') ? { socketPath: host } : { host }),
    connectTimeout: 5000,
  });
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>({
      sql: 'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE()',
      timeout: COUNT_TIMEOUT_MS,
    });
    return Number(rows[0]?.n ?? 0);
  } finally {
    await connection.end();
  }
}

/** How every tenant database is dumped: one consistent snapshot, with its routines and triggers. */
export const MARIADB_DUMP_OPTIONS = [
  '--single-transaction',
  '--quick',
  '--no-tablespaces',
  '--routines',
  '--triggers',
  '--hex-blob',
  '--default-character-set=utf8mb4',
];

/** mariadb-dump of the tenant database (one consistent snapshot), gzipped into the part `name`. */
export async function dumpMysql(
  database: DatabaseCredentials,
  archive: ArchiveWriter,
  name: string,
  stallMs?: number,
) {
  const args = [...mysqlArgs(database), ...MARIADB_DUMP_OPTIONS, database.database];
  const gzip = createGzip();
  await pipePart(archive, name, gzip, () =>
    runClient('/usr/bin/mariadb-dump', args, mysqlEnv(database), {
      output: gzip,
      watch: { ...DUMP_WATCH, stallMs },
    }),
  );
}

/** Loads the part `name` (a gzipped dump) into the tenant database. */
export async function loadMysql(database: DatabaseCredentials, archive: ArchiveReader, name: string) {
  await runClient('/usr/bin/mariadb', [...mysqlArgs(database), database.database], mysqlEnv(database), {
    input: archive.part(name).pipe(createGunzip()),
    watch: LOAD_WATCH,
  });
}

const pgEnv = (database: DatabaseCredentials) => ({
  PATH: '/usr/bin:/bin',
  PGPASSWORD: database.password,
  PGHOST: database.host,
  PGPORT: String(database.port),
  PGUSER: database.user,
  PGDATABASE: database.database,
  PGCONNECT_TIMEOUT: '10',
});

/** Tables of the tenant's PostgreSQL database (outside the system schemas). */
export async function postgresTableCount(database: DatabaseCredentials): Promise<number> {
  const client = new pg.Client({
    ...database,
    connectionTimeoutMillis: 10_000,
    statement_timeout: COUNT_TIMEOUT_MS,
    query_timeout: COUNT_TIMEOUT_MS,
    // The catalog's names, whatever the tenant set for its database or role (a `public.count` of its
    // own would otherwise run instead of the catalog's, and make the backup fail).
    options: '-c search_path=pg_catalog',
  });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "select pg_catalog.count(*)::int as n from pg_catalog.pg_tables where schemaname operator(pg_catalog.<>) all (array['pg_catalog', 'information_schema'])",
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/** pg_dump -Fc of the tenant database (one snapshot) into the part `name`. */
export async function dumpPostgres(
  database: DatabaseCredentials,
  archive: ArchiveWriter,
  name: string,
  stallMs?: number,
) {
  const out = new PassThrough();
  await pipePart(archive, name, out, () =>
    runClient(
      '/usr/lib/postgresql/15/bin/pg_dump',
      // The platform's own schema (the event trigger refusing hash indexes, from template1) is made with
      // every database: not the tenant's to dump or restore.
      ['-Fc', '--no-owner', '--no-privileges', '--no-tablespaces', '--exclude-schema=berth'],
      pgEnv(database),
      { output: out, watch: { ...DUMP_WATCH, stallMs } },
    ),
  );
}

/**
 * The entries of a pg_restore list (`pg_restore -l`) that a restore skips: the platform's event trigger
 * (a tenant may not create one; every database gets it from template1 anyway) and the platform's
 * `berth` schema, if an archive holds it (dumps exclude it; its objects are skipped by `-N berth`).
 * Entries are told by their catalog (pg_event_trigger is 3466, pg_namespace 2615), never by what their
 * names or bodies say: a function body or a text that reads `CREATE EVENT TRIGGER …` is restored as is.
 */
const PLATFORM_ENTRY = /^\d+; (?:3466 \d+ EVENT TRIGGER |2615 \d+ SCHEMA - berth \S+$)/;

/** `pg_restore -l` of the archive (read only as far as its table of contents), without PLATFORM_ENTRY. */
async function restoreList(database: DatabaseCredentials, archive: ArchiveReader, name: string) {
  const chunks: Buffer[] = [];
  const listed = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await runClient(PG_RESTORE, ['-l'], pgEnv(database), {
    input: archive.part(name),
    output: listed,
    readsPart: true,
  });
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((line) => !PLATFORM_ENTRY.test(line))
    .join('\n');
}

/**
 * Loads the part `name` (pg_dump's custom format) into the (freshly made, empty) tenant database, in
 * one transaction: pg_restore lists the archive's entries, and turns the ones a tenant restores (the
 * list without the platform's, see PLATFORM_ENTRY) into SQL, which psql runs as the tenant, stopping at
 * the first error.
 */
export async function loadPostgres(database: DatabaseCredentials, archive: ArchiveReader, name: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'berth-pg-restore-'));
  try {
    const list = path.join(dir, 'entries.list');
    await writeFile(list, await restoreList(database, archive, name), { mode: 0o600 });
    const sqlText = new PassThrough();
    await Promise.all([
      runClient(
        PG_RESTORE,
        ['--no-owner', '--no-privileges', '--no-tablespaces', '-N', 'berth', '-L', list, '-f', '-'],
        pgEnv(database),
        // With -L, pg_restore may be done (and close its stdin) before the archive's last data blocks,
        // of entries the list leaves out, were read: its exit says whether it had all it needed.
        { input: archive.part(name), output: sqlText, watch: LOAD_WATCH, readsPart: true },
      ).catch((error: unknown) => {
        sqlText.destroy(error as Error);
        throw error;
      }),
      runClient(
        '/usr/bin/psql',
        ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '--single-transaction', '-f', '-'],
        pgEnv(database),
        { input: sqlText },
      ),
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
