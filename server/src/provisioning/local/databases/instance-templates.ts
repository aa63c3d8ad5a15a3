import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../../lib/free-port.ts';
import { buildOnce } from '../../build-once.ts';
import { serviceUser } from '../host/host.ts';
import { INSTANCE_REDO_LOG_MB } from './instance-mariadb.ts';
import { ADMIN_MAP } from './instance-postgres.ts';
import { ADMIN_ROLE, BIN } from './postgres-process.ts';
import { guardTenantTemplate, hardenPostgresServer } from './postgres-tenants.ts';

/**
 * The prepared data folders every instance's server starts from (copied at its first start, then made
 * its user's): MariaDB's system tables with root as the socket-only admin, and a PostgreSQL cluster with
 * the admin role, the REVOKEs on postgres/template1 and template1's guard against hash indexes. Made
 * once per data root (host/build-once.ts: a partial folder renamed into place), named by their recipe's
 * version: a changed recipe makes new ones, instances made from an older one keep their data.
 */

const run = promisify(execFile);
const VERSION = { mysql: 'mariadb-1', postgresql: 'postgresql-1' } as const;

const templatesDir = (root: string) => path.join(root, 'db-templates');
const templateOf = (root: string, type: 'mysql' | 'postgresql') =>
  path.join(templatesDir(root), VERSION[type]);

async function mariadbTemplate(partial: string): Promise<void> {
  const mysqlUser = serviceUser('mysql');
  if (!mysqlUser) throw new Error('Instance servers need root');
  await mkdir(partial, { mode: 0o700 });
  await chown(partial, mysqlUser.uid, mysqlUser.gid);
  await run('/usr/bin/mariadb-install-db', [
    '--no-defaults',
    `--user=${mysqlUser.name}`,
    `--datadir=${partial}`,
    '--auth-root-authentication-method=socket',
    '--skip-test-db',
    `--innodb-log-file-size=${INSTANCE_REDO_LOG_MB}M`,
  ]);
}

async function postgresTemplate(partial: string): Promise<void> {
  const postgresUser = serviceUser('postgres');
  if (!postgresUser) throw new Error('Instance servers need root');
  await mkdir(partial, { mode: 0o700 });
  await chown(partial, postgresUser.uid, postgresUser.gid);
  const as = { uid: postgresUser.uid, gid: postgresUser.gid };
  await run(
    `${BIN}/initdb`,
    [
      `--pgdata=${partial}`,
      `--username=${ADMIN_ROLE}`,
      '--auth-local=peer',
      '--auth-host=reject',
      '--encoding=UTF8',
      '--locale=C.UTF-8',
    ],
    as,
  );
  await appendFile(path.join(partial, 'pg_ident.conf'), `${ADMIN_MAP}\n`);
  await writeFile(path.join(partial, 'pg_hba.conf'), `local all ${ADMIN_ROLE} peer map=berth\n`);
  // Once, on a socket only: the REVOKEs and template1's guard, then a clean stop.
  const port = await freePort();
  const server = spawn(
    `${BIN}/postgres`,
    ['-D', partial, '-p', String(port), '-k', partial, '-c', 'listen_addresses='],
    {
      ...as,
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  try {
    const login = (database: string) => ({ host: partial, port, user: ADMIN_ROLE, database });
    for (let tries = 0; ; tries += 1) {
      const client = new pg.Client(login('postgres'));
      client.on('error', () => {});
      try {
        await client.connect();
        await client.end();
        break;
      } catch (error) {
        if (tries > 200) throw error;
        await sleep(50);
      }
    }
    const pool = new pg.Pool({ ...login('postgres'), max: 1 });
    pool.on('error', () => {});
    await hardenPostgresServer(pool);
    await pool.end();
    const template1 = new pg.Client(login('template1'));
    template1.on('error', () => {});
    await template1.connect();
    await guardTenantTemplate(template1);
    await template1.end();
  } finally {
    server.kill('SIGINT');
    await exited;
  }
}

/** Makes the template of `type` when it is missing; answers its folder. */
export async function ensureTemplate(root: string, type: 'mysql' | 'postgresql'): Promise<string> {
  const target = templateOf(root, type);
  // The service users (mysql, postgres) pass through while they build it.
  await mkdir(templatesDir(root), { recursive: true, mode: 0o711 });
  await chmod(templatesDir(root), 0o711);
  const marker = type === 'mysql' ? 'mysql' : 'PG_VERSION';
  await buildOnce(
    target,
    () => existsSync(path.join(target, marker)),
    type === 'mysql' ? mariadbTemplate : postgresTemplate,
  );
  return target;
}
