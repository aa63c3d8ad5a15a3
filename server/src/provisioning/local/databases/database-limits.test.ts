import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCli, ensureTestPackages } from '../../../../test/provisioning/db-clients.ts';
import { deployDatabase, required } from '../../../../test/provisioning/engines.ts';
import { type HostDisk, makeHostDisk } from '../../../../test/provisioning/host-disk.ts';
import { killLeftoverServers } from '../../../../test/provisioning/leftover-servers.ts';
import type { ProvisioningDriver, StorageLimitEvent } from '../../driver.ts';
import type { DatabaseCredentials } from '../../engine.ts';
import { tenantNames } from '../../tenant-names.ts';
import { HOLD_FILE } from '../host/disk-hold.ts';
import { mountPoints } from '../host/tenant-disks.ts';
import { createLocalDriver } from '../local-driver.ts';
import { imageMbFor, SLACK_MB } from './database-disks.ts';
import { mariadbPaths } from './mariadb-server.ts';
import { postgresPaths } from './postgres-server.ts';

/**
 * Database sizes against the real MariaDB 10.11 and PostgreSQL 15 the local driver runs, on a file
 * system of the test's own (3 GiB), so that the host's free space can be filled and measured: tenants
 * that write past their size are stopped there while the server and the other tenants carry on,
 * temporary space is bounded, the limits survive a restart and a crash, and the host never gives
 * tenants the platform's reserve.
 */

const LIMIT_MB = 64;
const MIB = 1024 * 1024;
const RESERVE_MB = 1024;

let host: HostDisk;
let root = '';
let driver: ProvisioningDriver;
const logs: string[] = [];
const events: StorageLimitEvent[] = [];

const newDriver = (diskOvercommit = 1) => {
  const created = createLocalDriver({
    dataRoot: root,
    mysqlDiskMb: LIMIT_MB,
    postgresDiskMb: LIMIT_MB,
    diskReserveMb: RESERVE_MB,
    diskOvercommit,
    databaseServers: 'shared',
    log: (line) => logs.push(line),
  });
  created.onStorageLimit((event) => events.push(event));
  return created;
};

/** A tenant's session with the engine's own driver (errors keep their MariaDB errno / SQLSTATE). */
async function mysqlSession(c: DatabaseCredentials) {
  const connection = await mysql.createConnection({ ...c, multipleStatements: false });
  connection.on('error', () => {});
  return connection;
}
async function pgSession(c: DatabaseCredentials) {
  const client = new pg.Client(c);
  client.on('error', () => {});
  await client.connect();
  return client;
}
/** The MariaDB errno (or SQLSTATE for PostgreSQL) a statement failed with; undefined when it passed. */
async function failure(work: Promise<unknown>): Promise<{ code: string; message: string } | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    const e = error as { errno?: number; code?: string; message: string };
    return { code: String(e.errno ?? e.code), message: e.message };
  }
}

const MYSQL = { errors: { denied: '1142', dbDenied: '1044' } } as const;
/**
 * How a statement of a tenant reaching its limit ends: its connection closed by the guard (MariaDB
 * says so, or the socket just closes), or, waiting for the table's AUTO_INCREMENT lock meanwhile,
 * interrupted. Never "table is full" (1114) or a lost server.
 */
const CLOSED_BY_GUARD = ['1927', '1317', '1467', 'PROTOCOL_CONNECTION_LOST', 'ECONNRESET'];

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${logs.slice(-20).join('\n')}`);
    await sleep(50);
  }
}

/** Writes zeros as root into `dir` until its disk is full (the worst a writer could do there). */
async function fillToTheEnd(dir: string, name = 'filler'): Promise<void> {
  const file = await open(path.join(dir, name), 'w');
  const chunk = Buffer.alloc(4 * MIB);
  try {
    for (;;) await file.write(chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await file.close();
  }
}

/** Where a tenant's disk is mounted: `<server>/tenants/<disk>`, its disk named in its record. */
function diskOf(type: 'mysql' | 'postgresql', id: string): { point: string; image: string; record: string } {
  const { database } = tenantNames(id);
  const record = path.join(root, 'disks', type, `${database}.json`);
  const { disk } = JSON.parse(readFileSync(record, 'utf8')) as { disk: string };
  const server = type === 'mysql' ? mariadbPaths(root).dir : postgresPaths(root).dir;
  return {
    point: path.join(server, 'tenants', disk),
    image: path.join(root, 'disks', type, `${disk}.img`),
    record,
  };
}

const serverPid = async (type: 'mysql' | 'postgresql') => (await driver.health()).servers[type]?.pid;

beforeAll(async () => {
  await ensureTestPackages();
  host = await makeHostDisk(3072);
  root = path.join(host.dir, 'prov');
  driver = newDriver();
  await driver.start();
}, 300_000);

afterAll(async () => {
  await driver?.stop().catch(() => {});
  if (root) killLeftoverServers(root); // only after a failure
  await host?.remove();
}, 60_000);

describe('database sizes on the local servers', { timeout: 120_000 }, () => {
  const idA = randomUUID();
  const idB = randomUUID();
  const idP = randomUUID();
  const idQ = randomUUID();
  let a: DatabaseCredentials;
  let b: DatabaseCredentials;
  let p: DatabaseCredentials;
  let q: DatabaseCredentials;

  it('deploys each tenant database on a disk of its own, linked from the server', async () => {
    a = await deployDatabase(driver, 'mysql', { id: idA });
    b = await deployDatabase(driver, 'mysql', { id: idB });
    p = await deployDatabase(driver, 'postgresql', { id: idP });
    q = await deployDatabase(driver, 'postgresql', { id: idQ });
    const points = mountPoints();
    for (const id of [idA, idB]) {
      expect(points.has(diskOf('mysql', id).point)).toBe(true);
      expect(await required(driver.engine('mysql').storage).usage(id)).toMatchObject({
        limitBytes: LIMIT_MB * MIB,
        full: false,
      });
    }
    for (const id of [idP, idQ]) {
      expect(points.has(diskOf('postgresql', id).point)).toBe(true);
      const storage = await required(driver.engine('postgresql').storage).usage(id);
      // The disk is the limit: at least what was asked for, less than its image.
      expect(storage?.limitBytes).toBeGreaterThanOrEqual(LIMIT_MB * MIB);
      expect(storage?.limitBytes).toBeLessThan(imageMbFor(LIMIT_MB) * MIB);
    }
    const client = await pgSession(p);
    try {
      const { rows } = await client.query<{ spcname: string }>(
        'SELECT t.spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace WHERE d.datname = current_database()',
      );
      expect(rows[0]?.spcname).toBe(p.database);
    } finally {
      await client.end();
    }
  });

  it('deploys onto the warm spare: its disk, and for PostgreSQL the database made there beforehand', async () => {
    const spareRecord = path.join(root, 'disks', 'postgresql', 'spare.json');
    const spare = await waitFor('a warm PostgreSQL spare', async () =>
      existsSync(spareRecord)
        ? (JSON.parse(readFileSync(spareRecord, 'utf8')) as { disk: string })
        : undefined,
    );
    const id = randomUUID();
    const c = await deployDatabase(driver, 'postgresql', { id });
    expect(diskOf('postgresql', id).point).toBe(path.join(postgresPaths(root).dir, 'tenants', spare.disk));
    const owned = await adminCli(
      'postgresql',
      root,
      `SELECT d.datname || ' ' || r.rolname || ' ' || t.spcname FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba
       JOIN pg_tablespace t ON t.oid = d.dattablespace WHERE d.datname IN ('${c.database}', 'spare_${spare.disk}')`,
    );
    expect(owned.stdout).toBe(`${c.database} ${c.user} ${c.database}`);
    const tenant = await pgSession(c);
    await tenant.query('CREATE TABLE t (x int)');
    await tenant.end();
    await driver.engine('postgresql').delete(id);
  });

  it('stops a MySQL tenant writing long values past its size at the limit; the server and other tenants carry on', async () => {
    const pid = await serverPid('mysql');
    const setup = await mysqlSession(a);
    await setup.query('CREATE TABLE big (id int AUTO_INCREMENT PRIMARY KEY, pad LONGBLOB)');
    await setup.query("INSERT INTO big (pad) SELECT REPEAT('k', 1048576) FROM seq_1_to_8");
    await setup.end();
    // Four writers at once, each asking for 100 MiB of 1 MiB values in one statement: the case that
    // aborts MariaDB when the disk's end is reached (the rollback cannot get a page).
    const writers = await Promise.all([1, 2, 3, 4].map(() => mysqlSession(a)));
    const results = await Promise.all(
      writers.map((session, n) =>
        failure(
          session.query(`INSERT INTO big (pad) SELECT REPEAT(CHAR(${65 + n}), 1048576) FROM seq_1_to_100`),
        ),
      ),
    );
    for (const session of writers) await session.end().catch(() => {});
    for (const result of results) expect(CLOSED_BY_GUARD, JSON.stringify(result)).toContain(result?.code);

    const storage = await required(driver.engine('mysql').storage).usage(idA);
    console.log(
      `MySQL tenant stopped at ${((storage?.usedBytes ?? 0) / MIB).toFixed(1)} MiB of its ${LIMIT_MB} MiB`,
    );
    expect(storage?.full, logs.join('\n')).toBe(true);
    expect(storage?.usedBytes).toBeGreaterThanOrEqual(LIMIT_MB * MIB);
    // Past the limit by what the writers got in before the guard, far from the disk's end.
    expect(storage?.usedBytes).toBeLessThan((LIMIT_MB + SLACK_MB / 2) * MIB);
    // The customer is told (the event comes once the connections are closed).
    await waitFor('the event', async () =>
      events.some((event) => event.instanceId === idA && event.full) ? true : undefined,
    );

    // The server never went down, and the other tenant writes as before.
    expect(await serverPid('mysql')).toBe(pid);
    expect((await driver.health()).servers.mysql).toMatchObject({ ok: true, restarts: 0 });
    const other = await mysqlSession(b);
    await other.query('CREATE TABLE t (pad LONGBLOB)');
    await other.query("INSERT INTO t VALUES (REPEAT('b', 1048576))");
    await other.end();

    // The full tenant reads and deletes, but writes nothing new: no rows, no tables.
    const full = await mysqlSession(a);
    try {
      const [rows] = await full.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM big');
      expect(Number(rows[0]?.n)).toBe(8); // what was committed before; the rest rolled back
      const insert = await failure(full.query("INSERT INTO big (pad) VALUES ('x')"));
      expect(insert).toMatchObject({
        code: MYSQL.errors.denied,
        message: expect.stringMatching(/INSERT command denied/),
      });
      expect(await failure(full.query('CREATE TABLE more (x int)'))).toMatchObject({
        code: MYSQL.errors.denied,
      });
      expect(await failure(full.query('DELETE FROM big WHERE id < 3'))).toBeUndefined();
    } finally {
      await full.end();
    }
  });

  it('gives the MySQL tenant its writes back once emptying a table brings it below the limit', async () => {
    const session = await mysqlSession(a);
    // Deleted rows leave their room inside the table file: the disk holds as much as before.
    await session.query('DELETE FROM big');
    expect((await required(driver.engine('mysql').storage).usage(idA))?.full).toBe(true);
    await session.query('TRUNCATE TABLE big');
    await waitFor(
      'the writes back',
      async () => (events.some((event) => event.instanceId === idA && !event.full) ? true : undefined),
      20_000,
    );
    // Its connection is closed once idle (it keeps the privileges it logged in with; its TRUNCATE was
    // not cut short): a new one writes.
    await waitFor('the old connection closed', async () =>
      (await failure(session.query('SELECT 1'))) ? true : undefined,
    );
    const again = await mysqlSession(a);
    try {
      await again.query("INSERT INTO big (pad) VALUES (REPEAT('y', 1048576))");
      await again.query('CREATE TABLE again (x int)');
      expect((await required(driver.engine('mysql').storage).usage(idA))?.full).toBe(false);
    } finally {
      await again.end();
    }
  });

  it('stops a PostgreSQL tenant at the end of its disk; the server and other tenants carry on', async () => {
    const pid = await serverPid('postgresql');
    const tenant = await pgSession(p);
    try {
      // Stored as written (no compression), so that the rows take their size on the disk.
      await tenant.query('CREATE TABLE big (pad text)');
      await tenant.query('ALTER TABLE big ALTER pad SET STORAGE EXTERNAL');
      // About 1 MB the tenant can drop once the disk is full.
      await tenant.query(
        "CREATE TABLE spare AS SELECT repeat('s', 1000) AS pad FROM generate_series(1, 1000)",
      );
      // Hash indexes leave holes in their files that a checkpoint would have to fill on a full disk:
      // refused (asked before the disk is full, where building one would fail for want of room first).
      expect(await failure(tenant.query('CREATE INDEX ON big USING hash (pad)'))).toMatchObject({
        message: 'hash indexes are not available on this server: use a btree index',
      });
      const result = await failure(
        tenant.query('INSERT INTO big SELECT repeat(md5(g::text), 1000) FROM generate_series(1, 100000) g'),
      );
      expect(result).toMatchObject({
        code: '53100',
        message: expect.stringMatching(/No space left on device/),
      });
      const storage = await required(driver.engine('postgresql').storage).usage(idP);
      expect(storage?.usedBytes).toBeLessThanOrEqual(storage?.limitBytes ?? 0);
      expect(storage?.usedBytes).toBeGreaterThan((LIMIT_MB - 8) * MIB);
      // Nothing lets it write elsewhere: other tablespaces are closed to it.
      expect(await failure(tenant.query('CREATE TABLE x (a int) TABLESPACE pg_default'))).toMatchObject({
        message: 'permission denied for tablespace pg_default',
      });
      expect(await failure(tenant.query("SET temp_tablespaces = 'pg_default'"))).toMatchObject({
        message: 'permission denied for tablespace pg_default',
      });
      // Dropping a table gives its room back: it writes again. (On a disk full to the last page, a
      // VACUUM may find no room for the maps it keeps, nor TRUNCATE for the empty files it starts.)
      await tenant.query('DROP TABLE spare');
      await tenant.query("INSERT INTO big VALUES (repeat('z', 1000))");
    } finally {
      await tenant.end();
    }
    expect(await serverPid('postgresql')).toBe(pid);
    const other = await pgSession(q);
    try {
      await other.query("CREATE TABLE t AS SELECT repeat('q', 1000) AS pad FROM generate_series(1, 1000)");
    } finally {
      await other.end();
    }
  });

  it('bounds temporary space: sorts fail on their disk, tenants cannot make temporary tables in the shared one', async () => {
    const tmpDir = path.join(mariadbPaths(root).dir, 'tmp');
    const reserve = RESERVE_MB * MIB;
    const session = await mysqlSession(b);
    try {
      expect(await failure(session.query('CREATE TEMPORARY TABLE tt (x int)'))).toMatchObject({
        code: MYSQL.errors.dbDenied,
      });
      // About 1 GB of rows to sort, on a tmpdir of 256 MiB.
      const sort = await failure(
        session.query(
          'SELECT COUNT(*) FROM (SELECT seq, REPEAT(MD5(seq), 10) m FROM seq_1_to_3000000 ORDER BY m LIMIT 2999999) s',
        ),
      );
      expect(sort?.message).toMatch(/No space left on device|Disk got full|is full/);
      expect(await host.freeBytes()).toBeGreaterThan(reserve);
      await session.query('SELECT 1');
    } finally {
      await session.end();
    }
    expect(mountPoints().has(tmpDir)).toBe(true);

    const tenant = await pgSession(q);
    try {
      const sort = await failure(
        tenant.query(
          'SELECT count(*) FROM (SELECT g FROM generate_series(1, 20000000) g ORDER BY md5(g::text)) s',
        ),
      );
      // Its temporary files were on its own disk (its tablespace), and went with the statement (the
      // blocks come back when ext4 commits its journal, within seconds).
      expect(sort).toMatchObject({ code: '53100', message: expect.stringMatching(/pg_tblspc\/.*pgsql_tmp/) });
      await waitFor('the temporary files gone', async () => {
        const storage = await required(driver.engine('postgresql').storage).usage(idQ);
        return storage && storage.usedBytes < 16 * MIB ? storage : undefined;
      });
    } finally {
      await tenant.end();
    }
  });

  it('keeps the limits after a restart: disks mounted again before the servers start', async () => {
    // A full again, then everything stopped and started anew.
    const session = await mysqlSession(a);
    const refill = await failure(
      session.query("INSERT INTO big (pad) SELECT REPEAT('w', 1048576) FROM seq_1_to_100"),
    );
    await session.end().catch(() => {});
    const storage = await required(driver.engine('mysql').storage).usage(idA);
    expect(storage?.full, `${JSON.stringify({ refill, storage })}\n${logs.join('\n')}`).toBe(true);
    await driver.stop();
    const tenantsDir = path.join(mariadbPaths(root).dir, 'tenants');
    expect([...mountPoints()].filter((point) => point.startsWith(tenantsDir))).toEqual([]);

    driver = newDriver();
    await driver.start();
    expect((await required(driver.engine('mysql').storage).usage(idA))?.full).toBe(true);
    const full = await mysqlSession(a);
    expect(await failure(full.query("INSERT INTO big (pad) VALUES ('x')"))).toMatchObject({
      code: MYSQL.errors.denied,
    });
    const [rows] = await full.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM big');
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
    await full.end();
    const tenant = await pgSession(p);
    try {
      expect(
        await failure(
          tenant.query('INSERT INTO big SELECT repeat(md5(g::text), 1000) FROM generate_series(1, 100000) g'),
        ),
      ).toMatchObject({ code: '53100' });
    } finally {
      await tenant.end();
    }
  });

  it("ends a PostgreSQL tenant's session that lets the NOTIFY queue grow on the host's disk", async () => {
    // A session that listens, then stops reading what the server sends it (its client's socket paused).
    const listener = await pgSession(q);
    await listener.query('LISTEN flood');
    const socket = (listener as unknown as { connection: { stream: { pause(): void; destroy(): void } } })
      .connection.stream;
    socket.pause();
    // Another session of the same tenant sends about 95 MB of notifications the listener never reads.
    const sender = await pgSession(q);
    // (distinct payloads: PostgreSQL sends identical ones of a transaction once)
    await sender.query("SELECT pg_notify('flood', g || repeat('n', 7900)) FROM generate_series(1, 12000) g");
    await sender.end();
    const usage = async () =>
      Number((await adminCli('postgresql', root, 'SELECT pg_notification_queue_usage()')).stdout);
    expect(await usage()).toBeGreaterThan(0.01);
    await waitFor('the queue emptied', async () => ((await usage()) < 0.001 ? true : undefined), 30_000);
    expect(logs.join('\n')).toMatch(/the NOTIFY queue grew: [1-9]\d* tenant sessions holding it back ended/);
    socket.destroy();
  });

  it('brings MariaDB back when a tenant filled its disk to the end (the ballast makes room for recovery), and holds that tenant', async () => {
    const { database } = tenantNames(idB);
    const disk = diskOf('mysql', idB).point;
    // B holds an open transaction of long values (its rollback needs pages), then its disk fills up
    // to the end, as a writer outrunning the guard would leave it, and the server dies.
    const open = await mysqlSession(b);
    await open.query('CREATE TABLE pending (id int AUTO_INCREMENT PRIMARY KEY, pad LONGBLOB)');
    await open.query('BEGIN');
    await open.query("INSERT INTO pending (pad) SELECT REPEAT('p', 1048576) FROM seq_1_to_20");
    await fillToTheEnd(disk);
    const pid = await serverPid('mysql');
    const logged = logs.length;
    if (pid) process.kill(pid, 'SIGKILL');
    await open.end().catch(() => {});

    const health = await waitFor(
      'MariaDB back',
      async () => {
        const now = (await driver.health()).servers.mysql;
        return now?.ok && now.pid !== pid ? now : undefined;
      },
      60_000,
    );
    expect(health.restarts).toBe(1);
    expect(logs.join('\n')).toContain(`the disk of ${database} was full: its ballast was deleted`);
    // B filled its disk to the end: even with room again (the filler goes, rows deleted), its writes
    // stay refused for an hour, so that it cannot take the server down again and again. (Holding it
    // closes its sessions: B's sessions below are opened once the guard has held it.)
    await waitFor(
      'B stopped',
      async () => {
        const storage = await required(driver.engine('mysql').storage).usage(idB);
        const held = logs
          .slice(logged)
          .some((line) => line.includes(`mariadb: ${database} reached its limit`));
        return storage?.full && held ? storage : undefined;
      },
      20_000,
    );
    const after = await mysqlSession(b);
    const [rows] = await after.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM pending');
    expect(Number(rows[0]?.n)).toBe(0); // rolled back by the recovery
    await after.end();
    await rm(path.join(disk, 'filler'));
    const held = await mysqlSession(b);
    try {
      expect(await failure(held.query('DELETE FROM pending'))).toBeUndefined();
      await sleep(500); // the guard's check of that write
      expect(await failure(held.query("INSERT INTO pending (pad) VALUES ('x')"))).toMatchObject({
        code: MYSQL.errors.denied,
      });
    } finally {
      await held.end();
    }
    const { heldUntil } = JSON.parse(readFileSync(diskOf('mysql', idB).record, 'utf8')) as {
      heldUntil: number;
    };
    expect(heldUntil - Date.now()).toBeGreaterThan(55 * 60_000);
    expect((await required(driver.engine('mysql').storage).usage(idB))?.full).toBe(true);
  });

  it('never gives tenants the reserve: deploys are refused before, and full disks leave it free', async () => {
    // New tenants of both kinds until the host has no room for either (a pool's spare, made earlier,
    // is taken without asking: it was counted when it was made).
    const ids: { id: string; type: 'mysql' | 'postgresql' }[] = [];
    const refused = new Map<string, unknown>();
    for (let i = 0; i < 40 && refused.size < 2; i += 1) {
      const type = i % 2 === 0 ? 'postgresql' : 'mysql';
      if (refused.has(type)) continue;
      const id = randomUUID();
      try {
        await deployDatabase(driver, type, { id });
        ids.push({ id, type });
      } catch (error) {
        refused.set(type, error);
      }
    }
    for (const error of refused.values()) {
      expect(error).toMatchObject({
        code: 'conflict',
        message:
          'This server has no storage left for a new instance. Please try again later or contact support.',
      });
    }
    expect(refused.size).toBe(2);
    expect(logs.join('\n')).toMatch(/disk policy: a new \d+ MiB disk would bring what is promised to /);

    // Every disk filled to its end, as if every tenant wrote all it could.
    for (const server of [mariadbPaths(root).dir, postgresPaths(root).dir]) {
      const tenants = path.join(server, 'tenants');
      for (const disk of readdirSync(tenants)) {
        const point = path.join(tenants, disk);
        if (mountPoints().has(point)) await fillToTheEnd(point); // the warm spares too
      }
    }
    const free = await host.freeBytes();
    console.log(
      `host: ${(free / MIB).toFixed(0)} MiB free with every tenant disk full (reserve ${RESERVE_MB} MiB, ${ids.length + 4} tenants)`,
    );
    expect(free).toBeGreaterThanOrEqual(RESERVE_MB * MIB);
    for (const ref of ids) await driver.engine(ref.type).delete(ref.id);
  });

  it('at DISK_OVERCOMMIT 3 holds tenants out of the reserve: MySQL stopped by its guard where the hold says, PostgreSQL’s statement refused, the servers carry on', async () => {
    await driver.stop();
    driver = newDriver(3);
    await driver.start();
    const idM = randomUUID();
    const idG = randomUUID();
    const m = await deployDatabase(driver, 'mysql', { id: idM });
    const g = await deployDatabase(driver, 'postgresql', { id: idG });
    const pid = await serverPid('mysql');
    // The platform's own files leave 400 MiB outside the reserve: less than the tenant disks could take
    // together (MariaDB's temporary disk, unheld, is counted at its full 256 MiB).
    const ballast = path.join(host.dir, 'platform-files');
    const fill = await open(ballast, 'w');
    await fill.write(Buffer.alloc(Math.max(0, (await host.freeBytes()) - (RESERVE_MB + 400) * MIB)));
    await fill.close();
    await waitFor('the hold', async () =>
      existsSync(path.join(diskOf('mysql', idM).point, HOLD_FILE)) &&
      existsSync(path.join(diskOf('postgresql', idG).point, HOLD_FILE))
        ? true
        : undefined,
    );
    expect(logs.join('\n')).toMatch(
      /disk hold: tenant disks could take \d+ MiB more, the room outside the reserve is \d+ MiB/,
    );
    const held = await required(driver.engine('mysql').storage).usage(idM);
    expect(held?.limitBytes).toBeLessThan(LIMIT_MB * MIB);
    console.log(
      `MySQL tenant held to ${((held?.limitBytes ?? 0) / MIB).toFixed(1)} MiB of its ${LIMIT_MB} MiB`,
    );

    // The MySQL tenant writes all it can: its guard closes it where the hold says, the server stays up.
    const setup = await mysqlSession(m);
    await setup.query('CREATE TABLE big (id int AUTO_INCREMENT PRIMARY KEY, pad LONGBLOB)');
    await setup.end();
    const writer = await mysqlSession(m);
    const result = await failure(
      writer.query("INSERT INTO big (pad) SELECT REPEAT('m', 1048576) FROM seq_1_to_200"),
    );
    await writer.end().catch(() => {});
    expect(CLOSED_BY_GUARD, JSON.stringify(result)).toContain(result?.code);
    expect(await serverPid('mysql')).toBe(pid);
    expect((await required(driver.engine('mysql').storage).usage(idM))?.full).toBe(true);
    // Its owner hears that the server holds it short of its size (storage-alerts.ts), not that it is full.
    const stopped = await waitFor('the MySQL tenant’s event', async () =>
      events.find((event) => event.instanceId === idM && event.full),
    );
    expect(stopped.limitBytes).toBe(LIMIT_MB * MIB);
    expect(stopped.heldBytes).toBeLessThan(LIMIT_MB * MIB);

    // The PostgreSQL tenant's statement fails at its allowance; the next one runs.
    const client = await pgSession(g);
    try {
      await client.query('CREATE TABLE big (pad text)');
      const refused = await failure(
        // Rows of 1 MiB of hex digits of random numbers, which TOAST cannot shrink much, one at a time.
        client.query(
          "DO $$ BEGIN FOR i IN 1..200 LOOP INSERT INTO big SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 32768); END LOOP; END $$",
        ),
      );
      expect(refused).toMatchObject({
        code: '53100',
        message: expect.stringMatching(/could not (extend|write to) file|No space left on device/),
      });
      await client.query('SELECT 1');
    } finally {
      await client.end();
    }
    const free = await host.freeBytes();
    console.log(
      `overcommit 3 under the hold: ${(free / MIB).toFixed(0)} MiB free (reserve ${RESERVE_MB} MiB)`,
    );
    expect(free).toBeGreaterThanOrEqual(RESERVE_MB * MIB);

    // Room again: the hold goes and the MySQL tenant writes once more (its guard's sweep).
    const seen = logs.length;
    await rm(ballast);
    await waitFor('the hold to go', async () =>
      logs.slice(seen).includes('disk hold: tenant disks fit in the room outside the reserve: nothing held')
        ? true
        : undefined,
    );
    // The round logs its decision before it takes the hold files away.
    await waitFor('the hold file gone', async () =>
      existsSync(path.join(diskOf('mysql', idM).point, HOLD_FILE)) ? undefined : true,
    );
    await waitFor(
      'the MySQL tenant’s writes back',
      async () =>
        (await required(driver.engine('mysql').storage).usage(idM))?.full === false ? true : undefined,
      30_000,
    );
    const again = await mysqlSession(m);
    await again.query("INSERT INTO big (pad) VALUES ('back')");
    await again.end();
    await driver.engine('mysql').delete(idM);
    await driver.engine('postgresql').delete(idG);
  });

  it('deletes a tenant with its disk', async () => {
    for (const [id, type] of [
      [idA, 'mysql'],
      [idP, 'postgresql'],
    ] as const) {
      const disk = diskOf(type, id);
      await driver.engine(type).delete(id);
      expect(mountPoints().has(disk.point)).toBe(false);
      expect(existsSync(disk.image)).toBe(false);
      expect(existsSync(disk.record)).toBe(false);
    }
  });
});
