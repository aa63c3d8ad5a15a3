import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CustomerLaptop, startCustomerLaptop } from '../../../../test/provisioning/customer-laptop.ts';
import { ensureTestPackages } from '../../../../test/provisioning/db-clients.ts';
import { deployDatabase } from '../../../../test/provisioning/engines.ts';
import { cleanUpLocalDriver } from '../../../../test/provisioning/test-driver-cleanup.ts';
import type { ProvisioningDriver } from '../../driver.ts';
import type { DatabaseCredentials } from '../../engine.ts';
import { checkTenantLogin } from '../../tenant-login.ts';
import { tenantNames } from '../../tenant-names.ts';
import { type ControlGroups, hostControlGroups } from '../host/control-groups.ts';
import { systemUser } from '../host/host.ts';
import { TENANT_IDS } from '../host/tenant-users.ts';
import { createLocalDriver } from '../local-driver.ts';

/**
 * MySQL and PostgreSQL instances with a server of their own on the one box (instance-servers.ts), tried
 * as a customer would: the credentials' host and port from a network namespace standing in for the
 * customer's laptop, with the real `mariadb` and `psql` clients verifying the server against the CA the
 * instance page offers; plaintext refused. Then what a hostile tenant would try: its server's user, data
 * folder, admin socket and memory group, and a process of it allocating past its memory.
 */

const run = promisify(execFile);
const parent = `berth-test-own-db-${process.pid}`;
let root = '';
let driver: ProvisioningDriver | undefined;
let groups: ControlGroups;
let laptop: CustomerLaptop;
let caFile = '';
const logs: string[] = [];

beforeAll(async () => {
  await ensureTestPackages();
  laptop = startCustomerLaptop();
  root = await mkdtemp('/tmp/berth-own-db-');
  groups = hostControlGroups(parent);
  driver = createLocalDriver({
    dataRoot: root,
    publicHost: laptop.hostAddress,
    mysqlDiskMb: 64,
    postgresDiskMb: 64,
    cgroupParent: parent,
    log: (line) => logs.push(line),
  });
  await driver.start();
}, 300_000);

afterAll(async () => {
  laptop?.stop();
  await cleanUpLocalDriver(driver, root, groups);
}, 120_000);

const deployed: Record<string, { id: string; credentials: DatabaseCredentials }> = {};

async function deploy(type: 'mysql' | 'postgresql', memoryMb = 512) {
  const id = randomUUID();
  const credentials = await deployDatabase(required(driver), type, {
    id,
    resources: { memoryMb, cpus: 0.5 },
  });
  return { id, credentials };
}

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('not started');
  return value;
}

const mariadbFromLaptop = (c: DatabaseCredentials, tls: string[], sql = 'SELECT 1') =>
  laptop.run(
    '/usr/bin/mariadb',
    [
      '--no-defaults',
      `--host=${c.host}`,
      `--port=${c.port}`,
      `--user=${c.user}`,
      `--database=${c.database}`,
      '--connect-timeout=5',
      '--batch',
      '--skip-column-names',
      ...tls,
      `--execute=${sql}`,
    ],
    { MYSQL_PWD: c.password },
  );

const psqlFromLaptop = (c: DatabaseCredentials, tls: string, sql = 'SELECT 1') =>
  laptop.run(
    '/usr/bin/psql',
    [
      '--no-psqlrc',
      '--tuples-only',
      '--no-align',
      `--command=${sql}`,
      `host=${c.host} port=${c.port} user=${c.user} dbname=${c.database} ${tls}`,
    ],
    { PGPASSWORD: c.password, PGCONNECT_TIMEOUT: '5' },
  );

/** The pid of the server of instance `id`, from its supervisor's pid file. */
function serverPid(id: string): number {
  return Number(
    readFileSync(path.join(root, 'run', `db-${id.replaceAll('-', '').slice(0, 12)}.pid`), 'utf8'),
  );
}

describe('a server of its own per database instance, reached over TLS', () => {
  it('deploys MySQL and PostgreSQL with credentials naming the public host, a port of their own and the CA', async () => {
    deployed.mysql = await deploy('mysql');
    deployed.postgresql = await deploy('postgresql');
    const mysqlCredentials = deployed.mysql.credentials;
    const pgCredentials = deployed.postgresql.credentials;
    expect(mysqlCredentials.host).toBe(laptop.hostAddress);
    expect(mysqlCredentials.port).toBeGreaterThanOrEqual(20_000);
    expect(pgCredentials.port).not.toBe(mysqlCredentials.port);
    expect(mysqlCredentials.tls?.caPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(pgCredentials.tls?.caPem).toBe(mysqlCredentials.tls?.caPem);
    caFile = path.join(root, 'downloaded-ca.pem');
    await writeFile(caFile, mysqlCredentials.tls?.caPem ?? '');
    // The platform's own readiness check verifies the server the same way.
    await checkTenantLogin('mysql', mysqlCredentials);
    await checkTenantLogin('postgresql', pgCredentials);
  }, 120_000);

  it('lets the laptop in with verified TLS and refuses plaintext', async () => {
    const my = required(deployed.mysql).credentials;
    const verified = await mariadbFromLaptop(
      my,
      ['--ssl', `--ssl-ca=${caFile}`, '--ssl-verify-server-cert'],
      "SHOW STATUS LIKE 'Ssl_version'",
    );
    expect(verified).toMatchObject({ ok: true });
    expect(verified.stdout).toMatch(/^Ssl_version\tTLSv1\.[23]$/);
    const plain = await mariadbFromLaptop(my, ['--skip-ssl']);
    expect(plain.ok).toBe(false);
    expect(plain.stderr).toMatch(/ERROR/);

    const pgc = required(deployed.postgresql).credentials;
    const pgVerified = await psqlFromLaptop(
      pgc,
      `sslmode=verify-full sslrootcert=${caFile}`,
      'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
    );
    expect(pgVerified).toMatchObject({ ok: true, stdout: 't' });
    const pgPlain = await psqlFromLaptop(pgc, 'sslmode=disable');
    expect(pgPlain.ok).toBe(false);
    expect(pgPlain.stderr).toMatch(/no pg_hba\.conf entry .* no encryption/);
    // Verification is real: a CA that did not sign the server's certificate is refused by the client.
    const stranger = path.join(root, 'stranger-ca.pem');
    await run('/usr/bin/openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path.join(root, 'stranger.key'),
      '-out',
      stranger,
      '-days',
      '1',
      '-subj',
      '/CN=stranger',
    ]);
    expect((await psqlFromLaptop(pgc, `sslmode=verify-full sslrootcert=${stranger}`)).stderr).toMatch(
      /certificate verify failed/,
    );
    expect(
      (await mariadbFromLaptop(my, ['--ssl', `--ssl-ca=${stranger}`, '--ssl-verify-server-cert'])).ok,
    ).toBe(false);
  }, 60_000);

  it('shows a PostgreSQL tenant no other tenant: its server has only its own role and database', async () => {
    const other = await deploy('postgresql', 256);
    const roles = await psqlFromLaptop(
      required(deployed.postgresql).credentials,
      `sslmode=verify-full sslrootcert=${caFile}`,
      "SELECT string_agg(rolname, ',') FROM pg_roles WHERE rolname NOT LIKE 'pg\\_%'",
    );
    expect(roles.stdout.split(',').sort()).toEqual(
      ['provisioner', tenantNames(required(deployed.postgresql).id).user].sort(),
    );
    expect(roles.stdout).not.toContain(tenantNames(other.id).user);
    await required(driver).engine('postgresql').delete(other.id);
  }, 120_000);
});

describe('what a hostile tenant meets on its own server', () => {
  it('runs each server as its own user, owning a data folder no other tenant can read', async () => {
    const mysqlPid = serverPid(required(deployed.mysql).id);
    const pgPid = serverPid(required(deployed.postgresql).id);
    const uidOf = (pid: number) =>
      Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    const mysqlUid = uidOf(mysqlPid);
    const pgUid = uidOf(pgPid);
    expect(mysqlUid).toBeGreaterThanOrEqual(TENANT_IDS.first);
    expect(pgUid).toBeGreaterThanOrEqual(TENANT_IDS.first);
    expect(mysqlUid).not.toBe(pgUid);
    expect(systemUser(`db_${required(deployed.mysql).id.replaceAll('-', '').slice(0, 12)}`)?.uid).toBe(
      mysqlUid,
    );
    const mysqlDir = path.join(root, 'db', required(deployed.mysql).id);
    const data = await stat(path.join(mysqlDir, 'data'));
    expect({ uid: data.uid, mode: data.mode & 0o777 }).toEqual({ uid: mysqlUid, mode: 0o700 });
    // The PostgreSQL tenant's server user tries the MySQL tenant's data and its admin socket.
    const asOther = (args: string[]) =>
      run('/usr/bin/setpriv', [`--reuid=${pgUid}`, `--regid=${pgUid}`, '--clear-groups', ...args]).then(
        () => 'allowed',
        (error: { stderr?: string }) => error.stderr ?? 'refused',
      );
    expect(await asOther(['/bin/ls', path.join(mysqlDir, 'data')])).toMatch(/Permission denied/);
    expect(
      await asOther([
        '/usr/bin/mariadb',
        '--no-defaults',
        `--socket=${path.join(mysqlDir, 'run', 'mysqld.sock')}`,
        '--user=root',
        '-e',
        'SELECT 1',
      ]),
    ).toMatch(/Can't connect|Permission denied/);
    const pgDir = path.join(root, 'db', required(deployed.postgresql).id);
    expect(await asOther(['/bin/ls', path.join(pgDir, 'run')])).toBe('allowed'); // its own
    // The admin login is root's only: the server's own user over the socket is not the admin.
    expect(
      await asOther([
        '/usr/bin/psql',
        '--no-psqlrc',
        '-h',
        path.join(pgDir, 'run'),
        '-p',
        String(required(deployed.postgresql).credentials.port),
        '-U',
        'provisioner',
        '-d',
        'postgres',
        '-c',
        'SELECT 1',
      ]),
    ).toMatch(/Peer authentication failed|no pg_hba\.conf entry/);
  }, 60_000);

  it('keeps a 512MB server in a 512 MiB memory group: a process allocating past it is killed, the others answer', async () => {
    const id = required(deployed.mysql).id;
    const pid = serverPid(id);
    const memoryPath = /^\d+:memory:(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1];
    const v2Path = /^0::(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1];
    const limit =
      groups.mode === 'v1'
        ? readFileSync(path.join('/sys/fs/cgroup/memory', memoryPath ?? '', 'memory.limit_in_bytes'), 'utf8')
        : readFileSync(path.join('/sys/fs/cgroup', v2Path ?? '', 'memory.max'), 'utf8');
    expect(Number(limit)).toBe(512 * 1024 * 1024);
    expect(groups.mode === 'v1' ? memoryPath : v2Path).toBe(`/${parent}/${id}`);
    // A process of the instance (its user, its group) asks for 700 MiB and touches it.
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    const joins = groups.joins(id);
    const hog = spawn('/bin/sh', [
      '-c',
      'for f in "$@"; do echo $$ > "$f"; done; exec /usr/bin/setpriv --reuid=$0 --regid=$0 --clear-groups /usr/bin/perl -e \'$x = "x" x (700 * 1024 * 1024); sleep 30\'',
      String(uid),
      ...joins,
    ]);
    const ended = await new Promise<NodeJS.Signals | null>((resolve) =>
      hog.once('exit', (_code, sig) => resolve(sig)),
    );
    expect(ended).toBe('SIGKILL');
    expect((await groups.stats(id))?.oomKills).toBeGreaterThanOrEqual(1);
    // The server and the other instances answer.
    await checkTenantLogin('mysql', required(deployed.mysql).credentials);
    await checkTenantLogin('postgresql', required(deployed.postgresql).credentials);
  }, 60_000);

  it('removes everything of an instance with it: its server, user, group and disk', async () => {
    const { id } = required(deployed.postgresql);
    const key = id.replaceAll('-', '').slice(0, 12);
    await required(driver).engine('postgresql').delete(id);
    expect(systemUser(`db_${key}`)).toBeUndefined();
    expect(await groups.names()).not.toContain(id);
    expect(await readdir(path.join(root, 'disks'))).not.toContain(`db-${key}`);
    await expect(checkTenantLogin('postgresql', required(deployed.postgresql).credentials)).rejects.toThrow();
  }, 60_000);
});
