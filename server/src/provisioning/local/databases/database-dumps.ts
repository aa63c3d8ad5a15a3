import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { ArchiveReader, ArchiveWriter, DatabaseCredentials } from '../../engine.ts';
import { pipePart } from '../host/archive-parts.ts';

/**
 * Dumps and loads of tenant databases, always with the tenant's own login (its password in the
 * environment, never in argv): a dump holds only what the tenant may read, and a load runs with only the
 * tenant's rights, whatever the archive says. MySQL: `mariadb-dump --single-transaction` gzipped;
 * PostgreSQL: `pg_dump -Fc` (compressed by itself), loaded by `pg_restore` without owners, privileges or
 * tablespaces (the database's own tablespace, on its disk, takes everything).
 */

/**
 * Runs a client program, its stdin from `io.input` or its stdout into `io.output`; rejects with its
 * stderr on failure.
 */
async function runClient(
  command: string,
  args: string[],
  env: Record<string, string>,
  io: { input?: Readable; output?: Writable },
): Promise<void> {
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const streams: Promise<void>[] = [];
  if (io.input) streams.push(pipeline(io.input, child.stdin));
  else child.stdin.end();
  if (io.output) streams.push(pipeline(child.stdout, io.output));
  else child.stdout.resume();
  const [code, ...piped] = await Promise.allSettled([exited, ...streams]);
  if (code.status === 'rejected') throw code.reason;
  if (code.value !== 0)
    throw new Error(`${command.split('/').pop()} exited with ${code.value}: ${stderr.trim()}`);
  for (const result of piped) if (result.status === 'rejected') throw result.reason;
}

const mysqlEnv = (database: DatabaseCredentials) => ({ PATH: '/usr/bin:/bin', MYSQL_PWD: database.password });
const mysqlArgs = (database: DatabaseCredentials) => [
  '--no-defaults',
  '--protocol=TCP',
  `--host=${database.host}`,
  `--port=${database.port}`,
  `--user=${database.user}`,
];

/** The tenant database's table count (what a restore must bring back). */
export async function mysqlTableCount(database: DatabaseCredentials): Promise<number> {
  const connection = await mysql.createConnection({ ...database, connectTimeout: 5000 });
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE()',
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await connection.end();
  }
}

/** mariadb-dump of the tenant database (one consistent snapshot), gzipped into the part `name`. */
export async function dumpMysql(database: DatabaseCredentials, archive: ArchiveWriter, name: string) {
  const args = [
    ...mysqlArgs(database),
    '--single-transaction',
    '--quick',
    '--no-tablespaces',
    '--routines',
    '--triggers',
    '--hex-blob',
    '--default-character-set=utf8mb4',
    database.database,
  ];
  const gzip = createGzip();
  await pipePart(archive, name, gzip, () =>
    runClient('/usr/bin/mariadb-dump', args, mysqlEnv(database), { output: gzip }),
  );
}

/** Loads the part `name` (a gzipped dump) into the tenant database. */
export async function loadMysql(database: DatabaseCredentials, archive: ArchiveReader, name: string) {
  await runClient('/usr/bin/mariadb', [...mysqlArgs(database), database.database], mysqlEnv(database), {
    input: archive.part(name).pipe(createGunzip()),
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
  const client = new pg.Client({ ...database, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/** pg_dump -Fc of the tenant database (one snapshot) into the part `name`. */
export async function dumpPostgres(database: DatabaseCredentials, archive: ArchiveWriter, name: string) {
  const out = new PassThrough();
  await pipePart(archive, name, out, () =>
    runClient(
      '/usr/lib/postgresql/15/bin/pg_dump',
      ['-Fc', '--no-owner', '--no-privileges', '--no-tablespaces'],
      pgEnv(database),
      { output: out },
    ),
  );
}

/** pg_restore of the part `name` into the (freshly made, empty) tenant database, in one transaction. */
export async function loadPostgres(database: DatabaseCredentials, archive: ArchiveReader, name: string) {
  await runClient(
    '/usr/lib/postgresql/15/bin/pg_restore',
    [
      '--no-owner',
      '--no-privileges',
      '--no-tablespaces',
      '--single-transaction',
      '--exit-on-error',
      '-d',
      database.database,
    ],
    pgEnv(database),
    { input: archive.part(name) },
  );
}
