import { execFile, spawn } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestPackages, tenantCli } from '../../../../test/provisioning/db-clients.ts';
import { deployDatabase, required } from '../../../../test/provisioning/engines.ts';
import { type StoredBackup, testArchives } from '../../../../test/provisioning/test-archives.ts';
import { cleanUpLocalDriver } from '../../../../test/provisioning/test-driver-cleanup.ts';
import type { ProvisioningDriver, StorageLimitEvent } from '../../driver.ts';
import type { DatabaseCredentials } from '../../engine.ts';
import { type ControlGroups, hostControlGroups } from '../host/control-groups.ts';
import { createLocalDriver, type LocalDriverOptions } from '../local-driver.ts';

/**
 * Database instances' own servers (instance-servers.ts) through their life, with an operator's
 * certificate (issued here by a CA of the test's own, as an ACME one would be by a public one):
 * instances made on the shared servers moved onto servers of their own at their next deploy; servers
 * adopted after the API process crashes, and brought back when one dies; a backup restored exactly;
 * a tenant stopped at its size while the others write on; a renewed certificate taken without a
 * restart. Clients verify every server with the test's CA.
 */

const run = promisify(execFile);
type SqlType = 'mysql' | 'postgresql';
const TYPES: SqlType[] = ['mysql', 'postgresql'];
const MIB = 1024 * 1024;
const LIMIT_MB = 64;

const parent = `berth-test-own-life-${process.pid}`;
let root = '';
let tls = '';
let groups: ControlGroups;
let driver: ProvisioningDriver | undefined;
const logs: string[] = [];
const events: StorageLimitEvent[] = [];

/** The operator's certificate files (what certbot renews in place). */
const certFiles = () => ({
  certFile: path.join(tls, 'live', 'fullchain.pem'),
  keyFile: path.join(tls, 'live', 'privkey.pem'),
});

const ownOptions = (): LocalDriverOptions => ({
  dataRoot: root,
  publicHost: '127.0.0.1',
  mysqlDiskMb: LIMIT_MB,
  postgresDiskMb: LIMIT_MB,
  cgroupParent: parent,
  instanceTls: certFiles(),
  instanceTlsCheckMs: 500,
});
const newOwnDriver = () => {
  const created = createLocalDriver({ ...ownOptions(), log: (line) => logs.push(line) });
  created.onStorageLimit((event) => events.push(event));
  return created;
};

const openssl = (args: string[]) => run('/usr/bin/openssl', args, { cwd: tls });

/** A server certificate for 127.0.0.1 and localhost signed by the test's CA, serial `serial`. */
async function issue(name: string, serial: string): Promise<void> {
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  await openssl(['req', '-new', '-key', `${name}.key`, '-subj', '/CN=127.0.0.1', '-out', `${name}.csr`]);
  await writeFile(
    path.join(tls, `${name}.ext`),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
  );
  await openssl([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-set_serial',
    serial,
    '-days',
    '30',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ]);
}

/** Puts certificate `name` in the operator's files, as a renewal does (a new file renamed over). */
async function install(name: string): Promise<void> {
  const { certFile, keyFile } = certFiles();
  for (const [from, to] of [
    [`${name}.crt`, certFile],
    [`${name}.key`, keyFile],
  ] as const) {
    await writeFile(`${to}.new`, await readFile(path.join(tls, from)));
    await rename(`${to}.new`, to);
  }
}

const caFile = () => path.join(tls, 'ca.crt');

/** SQL as the tenant with the engine's own client, verifying the server with the test's CA. */
async function verifiedSql(type: SqlType, c: DatabaseCredentials, sql: string): Promise<string> {
  if (type === 'mysql') {
    const { stdout } = await run(
      '/usr/bin/mariadb',
      [
        '--no-defaults',
        `--host=${c.host}`,
        `--port=${c.port}`,
        `--user=${c.user}`,
        '--ssl',
        `--ssl-ca=${caFile()}`,
        '--ssl-verify-server-cert',
        '--batch',
        '--skip-column-names',
        `--execute=${sql}`,
        c.database,
      ],
      { env: { PATH: '/usr/bin:/bin', MYSQL_PWD: c.password } },
    );
    return stdout.trim();
  }
  const { stdout } = await run(
    '/usr/bin/psql',
    [
      '--no-psqlrc',
      '--tuples-only',
      '--no-align',
      '--set=ON_ERROR_STOP=1',
      `--command=${sql}`,
      `host=${c.host} port=${c.port} user=${c.user} dbname=${c.database} sslmode=verify-full sslrootcert=${caFile()}`,
    ],
    { env: { PATH: '/usr/bin:/bin', PGPASSWORD: c.password, PGCONNECT_TIMEOUT: '5' } },
  );
  return stdout.trim();
}

/** The serial of the certificate the server on `port` presents (its protocol's STARTTLS). */
async function servedSerial(type: SqlType, port: number): Promise<string> {
  const child = spawn('/usr/bin/openssl', [
    's_client',
    '-starttls',
    type === 'mysql' ? 'mysql' : 'postgres',
    '-connect',
    `127.0.0.1:${port}`,
  ]);
  child.stdin.end();
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await once(child, 'close');
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(out)?.[0];
  if (!pem) throw new Error(`no certificate from port ${port}: ${out.slice(0, 500)}`);
  return new X509Certificate(pem).serialNumber;
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${logs.slice(-20).join('\n')}`);
    await sleep(100);
  }
}

/** The MariaDB errno / PostgreSQL SQLSTATE a statement failed with; undefined when it passed. */
async function failure(work: Promise<unknown>): Promise<{ code: string; message: string } | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    const e = error as { errno?: number; code?: string; message: string };
    return { code: String(e.errno ?? e.code), message: e.message };
  }
}

interface Made {
  id: string;
  password: string;
  credentials: DatabaseCredentials;
}
const made: Partial<Record<SqlType | 'other', Made>> = {};
const instance = (key: SqlType | 'other') => required(made[key], key);
const serverPid = async (id: string) => (await required(driver).health()).servers[`database ${id}`]?.pid;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  await ensureTestPackages();
  root = await mkdtemp('/tmp/berth-own-life-');
  tls = await mkdtemp('/tmp/berth-own-life-tls-');
  groups = hostControlGroups(parent);
  await mkdir(path.join(tls, 'live'), { mode: 0o700 });
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
  await openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-subj',
    '/CN=Test public CA',
    '-days',
    '30',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    'ca.crt',
  ]);
  await issue('first', '0x1001');
  await issue('renewed', '0x1002');
  await install('first');
}, 300_000);

afterAll(async () => {
  await cleanUpLocalDriver(driver, root, groups);
  if (tls) await rm(tls, { recursive: true, force: true });
}, 120_000);

describe('instances made on the shared servers', () => {
  it('move onto servers of their own at their next deploy, with their data, user and password', async () => {
    // Before servers per instance: tenants of the shared servers, with data.
    const shared = createLocalDriver({
      dataRoot: root,
      databaseServers: 'shared',
      mysqlDiskMb: LIMIT_MB,
      postgresDiskMb: LIMIT_MB,
      log: (line) => logs.push(line),
    });
    await shared.start();
    const before: Partial<Record<SqlType, DatabaseCredentials>> = {};
    try {
      for (const type of TYPES) {
        const id = randomUUID();
        const password = `Moved-${type}-pass1`;
        const credentials = await deployDatabase(shared, type, { id, password });
        expect(credentials.tls).toBeUndefined();
        await tenantCli(type, credentials, 'CREATE TABLE notes (body text)');
        await tenantCli(type, credentials, "INSERT INTO notes VALUES ('before the move'), ('kept')");
        before[type] = credentials;
        made[type] = { id, password, credentials };
      }
    } finally {
      await shared.stop();
    }

    // The platform's start redeploys every instance with its stored password (reconcileInstances).
    driver = newOwnDriver();
    await driver.start();
    const resources = { memoryMb: 1024, cpus: 1 };
    const limitsOf = (type: SqlType) =>
      required(required(driver).usage).limits({ id: instance(type).id, type }, resources);
    for (const type of TYPES) {
      // Until it moves, the Configuration card says its server is shared, and nothing of the kernel.
      const shared = limitsOf(type);
      expect(shared.sharedServer).toBe(true);
      expect(shared.limits.find((limit) => limit.label === 'Memory')).toMatchObject({
        enforced: false,
        value: expect.stringMatching(/^Shared with the other databases/),
      });
    }
    for (const type of TYPES) {
      const { id, password } = instance(type);
      const old = required(before[type]);
      const credentials = await deployDatabase(required(driver), type, { id, password });
      expect(credentials).toMatchObject({
        host: '127.0.0.1',
        database: old.database,
        user: old.user,
        password,
        tls: { caPem: null },
      });
      expect(credentials.port).toBeGreaterThanOrEqual(20_000);
      expect(credentials.port).not.toBe(old.port);
      expect(await verifiedSql(type, credentials, 'SELECT count(*) FROM notes')).toBe('2');
      // The shared server no longer has it: the old address refuses its login.
      expect((await tenantCli(type, old, 'SELECT 1')).ok).toBe(false);
      made[type] = { id, password, credentials };
      const own = limitsOf(type);
      expect(own.sharedServer).toBe(false);
      expect(own.limits.find((limit) => limit.label === 'Memory')?.value).toMatch(
        /^1GB for this instance alone, enforced by the kernel$|not enforced on this server$/,
      );
    }
    expect(logs.join('\n')).toMatch(/mysql instance .* moved from the shared server to a server of its own/);
    // Another deploy keeps its server and data: nothing moves twice.
    for (const type of TYPES) {
      const again = await deployDatabase(required(driver), type, {
        id: instance(type).id,
        password: instance(type).password,
      });
      expect(again.port).toBe(instance(type).credentials.port);
      expect(await verifiedSql(type, again, 'SELECT count(*) FROM notes')).toBe('2');
    }
  }, 300_000);
});

describe("instances' own servers", () => {
  it('adopts its servers after the API process crashes, and starts one that dies again, data intact', async () => {
    await required(driver).stop();
    const script = path.resolve(import.meta.dirname, '../../../../test/provisioning/start-driver.ts');
    const child = spawn(process.execPath, [script, root, JSON.stringify(ownOptions())], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    let line: unknown;
    try {
      [line] = await once(createInterface({ input: child.stdout }), 'line');
    } finally {
      child.kill('SIGKILL'); // the "crash"
      await exited;
    }
    const pids = JSON.parse(String(line)) as Record<string, number | undefined>;
    const started = TYPES.map((type) => required(pids[`database ${instance(type).id}`], `${type} pid`));
    expect(started.every(alive)).toBe(true);

    driver = newOwnDriver();
    await driver.start();
    for (const [at, type] of TYPES.entries()) {
      expect(await serverPid(instance(type).id)).toBe(started[at]);
      expect(logs.join('\n')).toContain(`adopted running pid ${started[at]}`);
      expect(await verifiedSql(type, instance(type).credentials, 'SELECT count(*) FROM notes')).toBe('2');
    }

    // A server that dies is started again by the driver, with its data.
    const [mysqlPid] = started;
    process.kill(required(mysqlPid), 'SIGKILL');
    const restarted = await poll('the MySQL server started again', async () => {
      const pid = await serverPid(instance('mysql').id);
      return pid !== undefined && pid !== mysqlPid ? pid : undefined;
    });
    expect(alive(restarted)).toBe(true);
    const back = await poll('its login', () =>
      verifiedSql('mysql', instance('mysql').credentials, 'SELECT count(*) FROM notes'),
    );
    expect(back).toBe('2');
  }, 180_000);

  it('restores a backup exactly: tables and rows added after it are gone', async () => {
    const archives = await testArchives();
    try {
      const backups: Partial<Record<SqlType, StoredBackup>> = {};
      for (const type of TYPES) {
        const { id, password } = instance(type);
        backups[type] = await archives.dump(
          required(driver).engine(type).backups,
          { id, password },
          `b-${type}`,
        );
      }
      for (const type of TYPES) {
        const c = instance(type).credentials;
        await verifiedSql(type, c, "INSERT INTO notes VALUES ('after the backup')");
        await verifiedSql(type, c, 'CREATE TABLE later (x int)');
      }
      for (const type of TYPES) {
        const { id, password, credentials } = instance(type);
        await archives.restore(
          required(driver).engine(type).backups,
          { id, password },
          required(backups[type]),
        );
        expect(await verifiedSql(type, credentials, 'SELECT count(*) FROM notes')).toBe('2');
        const later =
          type === 'mysql'
            ? "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'later'"
            : "SELECT count(*) FROM pg_tables WHERE tablename = 'later'";
        expect(await verifiedSql(type, credentials, later)).toBe('0');
      }
    } finally {
      await rm(archives.dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses a MySQL tenant's writes at its size; its server and the other instances write on", async () => {
    const d = required(driver);
    const other = { id: randomUUID(), password: 'Other-tenant-pass1' };
    made.other = { ...other, credentials: await deployDatabase(d, 'mysql', other) };
    const { id, credentials } = instance('mysql');
    const pid = await serverPid(id);
    const ca = await readFile(caFile(), 'utf8');
    const session = async (c: DatabaseCredentials) => {
      const connection = await mysql.createConnection({ ...c, ssl: { ca } });
      connection.on('error', () => {});
      return connection;
    };
    const setup = await session(credentials);
    await setup.query('CREATE TABLE big (id int AUTO_INCREMENT PRIMARY KEY, pad LONGBLOB)');
    await setup.end();
    const writers = await Promise.all([1, 2].map(() => session(credentials)));
    const results = await Promise.all(
      writers.map((s, n) =>
        failure(s.query(`INSERT INTO big (pad) SELECT REPEAT(CHAR(${65 + n}), 1048576) FROM seq_1_to_100`)),
      ),
    );
    for (const s of writers) await s.end().catch(() => {});
    // Cut off by the guard at the limit (its connection closed), never "table is full" or a lost server.
    for (const result of results) expect(result, JSON.stringify(result)).toBeDefined();
    const storage = await required(d.engine('mysql').storage).usage(id);
    expect(storage?.full, logs.slice(-20).join('\n')).toBe(true);
    expect(storage?.limitBytes).toBe(LIMIT_MB * MIB);
    await poll('the event', async () =>
      events.some((e) => e.instanceId === id && e.full) ? true : undefined,
    );
    const full = await session(credentials);
    try {
      expect(await failure(full.query("INSERT INTO big (pad) VALUES ('x')"))).toMatchObject({
        code: '1142',
        message: expect.stringMatching(/INSERT command denied/),
      });
      // It still reads.
      await full.query('SELECT count(*) FROM notes');
    } finally {
      await full.end();
    }
    // Its server never went down; another instance writes as before.
    expect(await serverPid(id)).toBe(pid);
    const neighbour = await session(instance('other').credentials);
    try {
      await neighbour.query('CREATE TABLE t (pad LONGBLOB)');
      await neighbour.query("INSERT INTO t VALUES (REPEAT('b', 1048576))");
    } finally {
      await neighbour.end();
    }
  }, 120_000);

  it('stops a PostgreSQL tenant at the end of its disk; its server and the other instances write on', async () => {
    const { id, credentials } = instance('postgresql');
    const pid = await serverPid(id);
    const ca = await readFile(caFile(), 'utf8');
    const client = new pg.Client({ ...credentials, ssl: { ca } });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query('CREATE TABLE big (pad text)');
      await client.query('ALTER TABLE big ALTER pad SET STORAGE EXTERNAL');
      const result = await failure(
        client.query('INSERT INTO big SELECT repeat(md5(g::text), 1000) FROM generate_series(1, 100000) g'),
      );
      expect(result).toMatchObject({
        code: '53100',
        message: expect.stringMatching(/No space left on device/),
      });
      const storage = await required(required(driver).engine('postgresql').storage).usage(id);
      // Its disk, of the size it had on the shared server: full at about LIMIT_MB.
      expect(storage?.usedBytes).toBeLessThanOrEqual(storage?.limitBytes ?? 0);
      expect(storage?.usedBytes).toBeGreaterThan((LIMIT_MB - 8) * MIB);
      expect(storage?.usedBytes).toBeLessThan((LIMIT_MB + 16) * MIB);
    } finally {
      await client.end();
    }
    expect(await serverPid(id)).toBe(pid);
    expect(await verifiedSql('postgresql', credentials, 'SELECT count(*) FROM notes')).toBe('2');
    await verifiedSql('mysql', instance('other').credentials, 'CREATE TABLE u (x int)');
  }, 120_000);

  it("takes an operator's renewed certificate within its check, without a restart", async () => {
    const ports = TYPES.map((type) => instance(type).credentials.port);
    const pids = await Promise.all(TYPES.map((type) => serverPid(instance(type).id)));
    for (const [at, type] of TYPES.entries())
      expect(await servedSerial(type, required(ports[at]))).toBe('1001');
    await install('renewed');
    for (const [at, type] of TYPES.entries()) {
      await poll(`the renewed certificate on ${type}`, async () =>
        (await servedSerial(type, required(ports[at]))) === '1002' ? true : undefined,
      );
      expect(await serverPid(instance(type).id)).toBe(pids[at]);
      expect(await verifiedSql(type, instance(type).credentials, 'SELECT count(*) FROM notes')).toBe('2');
    }
  }, 60_000);
});
