import { PassThrough, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip } from 'node:zlib';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { runClient } from '../../../lib/run-client.ts';
import type { ArchiveReader, ArchiveWriter, DatabaseCredentials } from '../../engine.ts';
import { pipePart } from '../host/archive-parts.ts';

/**
 * Dumps and loads of tenant databases, always with the tenant's own login (its password in the
 * environment, never in argv): a dump holds only what the tenant may read, and a load runs with only the
 * tenant's rights, whatever the archive says. MySQL: `mariadb-dump --single-transaction` gzipped;
 * PostgreSQL: `pg_dump -Fc` (compressed by itself), loaded by `pg_restore` without owners, privileges or
 * tablespaces (the database's own tablespace, on its disk, takes everything).
 */

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
      // The platform's own schema (the event trigger refusing hash indexes, from template1) is made with
      // every database: not the tenant's to dump or restore.
      ['-Fc', '--no-owner', '--no-privileges', '--no-tablespaces', '--exclude-schema=berth'],
      pgEnv(database),
      { output: out },
    ),
  );
}

/**
 * Drops the platform's event trigger from pg_restore's SQL (a tenant may not create one; every database
 * gets it from template1 anyway). Lines inside COPY data pass untouched, whatever they say.
 */
function withoutEventTriggers(): Transform {
  const text = new StringDecoder('utf8');
  let rest = '';
  let copying = false;
  let skipping = false;
  const keep = (line: string): boolean => {
    if (copying) {
      if (line === '\\.') copying = false;
      return true;
    }
    if (skipping) {
      if (line.trimEnd().endsWith(';')) skipping = false;
      return false;
    }
    if (/^COPY .* FROM stdin;$/.test(line)) copying = true;
    else if (line.startsWith('CREATE EVENT TRIGGER ')) {
      skipping = !line.trimEnd().endsWith(';');
      return false;
    }
    return true;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const lines = (rest + text.write(chunk)).split('\n');
      rest = lines.pop() ?? '';
      done(
        null,
        lines
          .filter(keep)
          .map((line) => `${line}\n`)
          .join(''),
      );
    },
    flush(done) {
      rest += text.end();
      done(null, rest && keep(rest) ? rest : '');
    },
  });
}

/**
 * Loads the part `name` (pg_dump's custom format) into the (freshly made, empty) tenant database, in
 * one transaction: pg_restore turns it into SQL, which psql runs as the tenant, stopping at the first
 * error.
 */
export async function loadPostgres(database: DatabaseCredentials, archive: ArchiveReader, name: string) {
  const sqlText = new PassThrough();
  const filtered = withoutEventTriggers();
  await Promise.all([
    runClient(
      '/usr/lib/postgresql/15/bin/pg_restore',
      ['--no-owner', '--no-privileges', '--no-tablespaces', '-f', '-'],
      pgEnv(database),
      { input: archive.part(name), output: sqlText },
    ).catch((error: unknown) => {
      sqlText.destroy(error as Error);
      throw error;
    }),
    runClient(
      '/usr/bin/psql',
      ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '--single-transaction', '-f', '-'],
      pgEnv(database),
      { input: sqlText.pipe(filtered) },
    ),
  ]);
}
