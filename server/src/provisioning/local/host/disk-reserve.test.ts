import { execFile } from 'node:child_process';
import { lstatSync, statSync } from 'node:fs';
import { link, mkdir, open, readFile, rm, statfs, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HostDisk, makeHostDisk } from '../../../../test/provisioning/host-disk.ts';
import { storageReport } from '../../disk-policy.ts';
import { StorageExhaustedError } from '../../driver.ts';
import { type DiskGuard, HOLD_FILE, writeHolds } from './disk-hold.ts';
import { type DiskReserve, diskReserve } from './disk-reserve.ts';
import { type DiskPool, diskPool, diskUsage, isMounted } from './tenant-disks.ts';

/**
 * The disk policy (disk-policy.ts) as the local driver keeps it, on a file system of the test's own
 * (512 MiB), so that what is promised, written and free is exact: promises up to DISK_OVERCOMMIT × the
 * real space and no further, the high-water mark, and, whatever is promised, each disk held to its own
 * size by the kernel.
 */

const run = promisify(execFile);
const MIB = 1024 * 1024;
const DISK_MB = 96;
const RESERVE_MB = 64;

let host: HostDisk;
let disks = '';
const logs: string[] = [];
const pools: DiskPool[] = [];

beforeAll(async () => {
  host = await makeHostDisk(512);
  disks = path.join(host.dir, 'disks');
}, 60_000);

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop();
  for (const at of [point(), ...Array.from({ length: 20 }, (_, i) => point(i))])
    if (isMounted(at)) await run('/usr/bin/umount', ['--lazy', at]);
  await rm(disks, { recursive: true, force: true });
  await rm(path.join(host.dir, 'ballast'), { force: true });
  logs.length = 0;
});

afterAll(async () => {
  await host?.remove();
});

/** Where a test mounts its disk (or its i-th). */
const point = (i?: number) => path.join(host.dir, i === undefined ? 'point' : `point-${i}`);

function poolOf(reserve: DiskReserve, more: { guard?: DiskGuard; label?: string } = {}): DiskPool {
  const pool = diskPool({
    dir: disks,
    sizeMb: DISK_MB,
    names: /^t[0-9]+$/,
    label: more.label ?? 'policy-test',
    rootOwner: { uid: 0, gid: 0 },
    rootMode: 0o755,
    reserve,
    log: (line) => logs.push(line),
    ...(more.guard ? { guard: more.guard } : {}),
  });
  pools.push(pool);
  return pool;
}

/** Makes sparse images of DISK_MB through the reserve until it refuses; answers how many it made. */
async function promiseUntilRefused(reserve: DiskReserve): Promise<{ made: number; refusal: unknown }> {
  await mkdir(disks, { recursive: true, mode: 0o700 });
  for (let made = 0; made < 200; made += 1) {
    try {
      await reserve.withRoom(DISK_MB * MIB, async () => {
        const image = path.join(disks, `t${made}.img`);
        await (await open(image, 'w')).close();
        await truncate(image, DISK_MB * MIB);
      });
    } catch (refusal) {
      return { made, refusal };
    }
  }
  throw new Error('never refused');
}

/** Writes `mb` MiB of real data (not sparse) to `file`, or until the disk is full. */
async function writeData(file: string, mb: number): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(MIB, 7);
  try {
    for (let i = 0; i < mb; i += 1) await handle.write(chunk);
    await handle.sync();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await handle.close();
  }
}

describe('the disk policy on a disk of its own', () => {
  it('promises up to DISK_OVERCOMMIT × the real space and refuses the next disk with the customer’s message', async () => {
    const reserve = diskReserve(disks, { reserveMb: RESERVE_MB, overcommit: 3 }, (line) => logs.push(line));
    const { made, refusal } = await promiseUntilRefused(reserve);
    const figures = await reserve.figures();
    const realSpace = figures.freeBytes + figures.tenantUsedBytes - RESERVE_MB * MIB;
    console.log(
      `overcommit 3: ${made} disks of ${DISK_MB} MiB promised (${figures.promisedBytes / MIB} MiB) on ${(realSpace / MIB).toFixed(0)} MiB of real space`,
    );
    // More promised than the disk has, by up to the ratio, and not one disk more.
    expect(figures.promisedBytes).toBeGreaterThan(2 * realSpace);
    expect(figures.promisedBytes).toBeLessThanOrEqual(3 * realSpace);
    expect(figures.promisedBytes + DISK_MB * MIB).toBeGreaterThan(3 * realSpace);
    expect(refusal).toBeInstanceOf(StorageExhaustedError);
    expect((refusal as Error).message).toBe(
      'This server has no storage left for a new instance. Please try again later or contact support.',
    );
    expect(logs.at(-1)).toMatch(
      /^disk policy: a new 96 MiB disk would bring what is promised to .* \(DISK_OVERCOMMIT 3 × /,
    );

    // The admin's figures say the same.
    const report = storageReport(figures, reserve.policy, { promisedBytes: DISK_MB * MIB, disks: 1 });
    expect(report.headroomSites).toBe(0);
    expect(report.promiseLimitBytes).toBe(Math.floor(3 * realSpace));
  });

  it('at DISK_OVERCOMMIT 1 promises only what is there: every disk written to its end leaves the reserve free', async () => {
    const reserve = diskReserve(disks, { reserveMb: RESERVE_MB, overcommit: 1 }, (line) => logs.push(line));
    const { made } = await promiseUntilRefused(reserve);
    expect(made).toBeGreaterThan(0);
    for (let i = 0; i < made; i += 1) await writeData(path.join(disks, `t${i}.img`), DISK_MB);
    const free = await host.freeBytes();
    console.log(
      `overcommit 1: ${made} disks written full, ${(free / MIB).toFixed(0)} MiB left (reserve ${RESERVE_MB})`,
    );
    expect(free).toBeGreaterThanOrEqual(RESERVE_MB * MIB);
  });

  it('refuses new disks past the high-water mark whatever is promised, and takes them again once space is freed', async () => {
    const reserve = diskReserve(disks, { reserveMb: RESERVE_MB, overcommit: 20 }, (line) => logs.push(line));
    await mkdir(disks, { recursive: true, mode: 0o700 });
    const make = () => reserve.withRoom(DISK_MB * MIB, async () => {});
    await make();
    // Real use to 90 % of (size − reserve): the platform's own files, say.
    const fs = await statfs(host.dir);
    const size = (fs.blocks - fs.bfree + fs.bavail) * fs.bsize;
    const used = (fs.blocks - fs.bfree) * fs.bsize;
    const target = 0.9 * (size - RESERVE_MB * MIB);
    await writeData(path.join(host.dir, 'ballast'), Math.ceil((target - used) / MIB));
    await expect(make()).rejects.toBeInstanceOf(StorageExhaustedError);
    expect(logs.at(-1)).toMatch(
      /^disk policy: a new 96 MiB disk refused: the file system uses \d+ MiB, past its high-water mark/,
    );
    await rm(path.join(host.dir, 'ballast'));
    await make();
  });

  it('holds each disk to its own size however much more is promised', async () => {
    const reserve = diskReserve(disks, { reserveMb: RESERVE_MB, overcommit: 20 }, (line) => logs.push(line));
    const pool = poolOf(reserve);
    await mkdir(point(), { recursive: true });
    await pool.ensure('t1', point());
    const before = await host.freeBytes();
    await writeData(path.join(point(), 'all-it-can'), 4 * DISK_MB);
    const usage = await diskUsage(point());
    expect(usage.freeBytes).toBeLessThan(MIB);
    // What it took on the host: its own size at most.
    expect(before - (await host.freeBytes())).toBeLessThanOrEqual(DISK_MB * MIB);
    await pool.remove('t1', point());
  });

  it('at DISK_OVERCOMMIT 3 holds the disks out of the reserve: tenants writing every disk as far as it lets them never reach it', async () => {
    const reserve = diskReserve(disks, { reserveMb: RESERVE_MB, overcommit: 3 }, (line) => logs.push(line));
    const pool = poolOf(reserve);
    let made = 0;
    for (; made < 20; made += 1) {
      try {
        await pool.ensure(`t${made}`, point(made));
      } catch (error) {
        expect(error).toBeInstanceOf(StorageExhaustedError);
        break;
      }
    }
    expect(made).toBeGreaterThan(8); // well past what is there: 96 MiB each on about 440 MiB
    await reserve.hold();
    expect(logs.some((line) => line.startsWith('disk hold: tenant disks could take'))).toBe(true);
    const room = (await host.freeBytes()) - RESERVE_MB * MIB;
    const free = async () => {
      let sum = 0;
      for (let i = 0; i < made; i += 1) sum += (await diskUsage(point(i))).freeBytes;
      return sum;
    };
    expect(await free()).toBeLessThanOrEqual(room);
    // The admin's figures say what each disk is dealt.
    const dealt = reserve.holdAllowance() ?? 0;
    expect(dealt).toBeGreaterThan(MIB);
    expect(dealt * made).toBeLessThanOrEqual(room);
    // Dealt so little that a new instance could not finish its deploy: no new disk.
    expect(dealt).toBeLessThan(32 * MIB);
    await expect(reserve.withRoom(DISK_MB * MIB, async () => {})).rejects.toBeInstanceOf(
      StorageExhaustedError,
    );
    expect(logs.at(-1)).toMatch(
      /^disk policy: a new 96 MiB disk refused: the hold deals each disk only \d+ MiB/,
    );
    // The hold is root's, takes no space on the host, and is not counted as the tenant's.
    const hold = statSync(path.join(point(0), HOLD_FILE));
    expect(hold.uid).toBe(0);
    expect(hold.mode & 0o777).toBe(0o600);
    expect((await diskUsage(point(0))).usedBytes).toBeLessThan(4 * MIB);

    // Every tenant writes all it can, round after round (a writer that spent its allowance gets more).
    let written = 0;
    for (let pass = 0; pass < 30; pass += 1) {
      const before = await host.freeBytes();
      for (let i = 0; i < made; i += 1) await writeData(path.join(point(i), `data-${pass}`), DISK_MB);
      await reserve.hold();
      const wrote = before - (await host.freeBytes());
      written += wrote;
      if (wrote < MIB) break;
    }
    const left = await host.freeBytes();
    console.log(
      `overcommit 3 with the hold: ${made} disks of ${DISK_MB} MiB on ${(room / MIB).toFixed(0)} MiB of room, tenants wrote ${(written / MIB).toFixed(0)} MiB, ${(left / MIB).toFixed(0)} MiB left (reserve ${RESERVE_MB})`,
    );
    expect(left).toBeGreaterThanOrEqual(RESERVE_MB * MIB);
    // The room was theirs to use, but for what ext4's own blocks may still take (journals, inode tables).
    expect(written).toBeGreaterThan(0.5 * room);
    // What a tenant is told it holds is what it wrote.
    const usage = await diskUsage(point(0));
    expect(usage.usedBytes).toBeLessThan(DISK_MB * MIB);

    // Space comes back (half the tenants leave): a tenant writing gets more, round after round.
    const stuck = await diskUsage(point(made - 1));
    for (let i = 0; i < made / 2; i += 1) await pool.remove(`t${i}`, point(i));
    await reserve.hold();
    let more = 0;
    for (let pass = 0; pass < 10; pass += 1) {
      const before = await host.freeBytes();
      await writeData(path.join(point(made - 1), `more-${pass}`), DISK_MB);
      await reserve.hold();
      more += before - (await host.freeBytes());
    }
    expect(more).toBeGreaterThan(stuck.freeBytes + 16 * MIB);
    expect(await host.freeBytes()).toBeGreaterThanOrEqual(RESERVE_MB * MIB);
  }, 120_000);

  it('holds a guarded disk (MySQL’s) through its guard: a sparse file the guard counts, no block taken', async () => {
    const reserve = diskReserve(disks, { reserveMb: RESERVE_MB, overcommit: 20 }, (line) => logs.push(line));
    const pool = poolOf(reserve, { guard: { slackBytes: 16 * MIB, ballast: 'ballast' } });
    await pool.ensure('t1', point(1));
    // The platform's own files leave 40 MiB of room: less than the disk's 80 the guard would let pass.
    const fill = (await host.freeBytes()) - (RESERVE_MB + 40) * MIB;
    await writeData(path.join(host.dir, 'ballast'), Math.floor(fill / MIB));
    await reserve.hold();
    const hold = statSync(path.join(point(1), HOLD_FILE));
    expect(hold.size).toBeGreaterThan(16 * MIB);
    expect(hold.blocks).toBe(0);
    const usage = await diskUsage(point(1));
    expect(usage.usedBytes).toBeLessThan(4 * MIB);
    const guardLets = usage.freeBytes - 16 * MIB - hold.size;
    expect(guardLets).toBeLessThanOrEqual(40 * MIB);
    expect(guardLets).toBeGreaterThan(16 * MIB);
    // Room again: the hold goes.
    await rm(path.join(host.dir, 'ballast'));
    await reserve.hold();
    expect(statSync(path.join(point(1), HOLD_FILE), { throwIfNoEntry: false })).toBeUndefined();
    expect(reserve.holdAllowance()).toBeNull();
    expect(logs.at(-1)).toBe('disk hold: tenant disks fit in the room outside the reserve: nothing held');
  });

  it('never grows or truncates another file through the hold’s name: a link or a symbolic link there is replaced', async () => {
    const dir = path.join(host.dir, 'server-owned');
    await mkdir(dir, { recursive: true });
    const victim = path.join(dir, 'data-file');
    await writeFile(victim, 'the server’s data');
    await link(victim, path.join(dir, HOLD_FILE));
    await writeHolds(new Map([[dir, { bytes: 8 * MIB, sparse: false }]]));
    expect(await readFile(victim, 'utf8')).toBe('the server’s data');
    const hold = statSync(path.join(dir, HOLD_FILE));
    expect([hold.nlink, hold.uid, hold.size]).toEqual([1, 0, 8 * MIB]);

    await rm(path.join(dir, HOLD_FILE));
    await symlink(victim, path.join(dir, HOLD_FILE));
    await writeHolds(new Map([[dir, { bytes: 4 * MIB, sparse: true }]]));
    expect(await readFile(victim, 'utf8')).toBe('the server’s data');
    expect(lstatSync(path.join(dir, HOLD_FILE)).isFile()).toBe(true);
    await rm(dir, { recursive: true });
  });
});
