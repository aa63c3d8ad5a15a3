import { execFile } from 'node:child_process';
import { mkdir, open, rm, statfs, truncate } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HostDisk, makeHostDisk } from '../../../../test/provisioning/host-disk.ts';
import { storageReport } from '../../disk-policy.ts';
import { StorageExhaustedError } from '../../driver.ts';
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
  if (isMounted(point())) await run('/usr/bin/umount', ['--lazy', point()]);
  await rm(disks, { recursive: true, force: true });
  await rm(path.join(host.dir, 'ballast'), { force: true });
  logs.length = 0;
});

afterAll(async () => {
  await host?.remove();
});

/** Where the last test mounts its disk. */
const point = () => path.join(host.dir, 'point');

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
    const pool = diskPool({
      dir: disks,
      sizeMb: DISK_MB,
      names: /^t[0-9]+$/,
      label: 'policy-test',
      rootOwner: { uid: 0, gid: 0 },
      rootMode: 0o755,
      reserve,
      log: (line) => logs.push(line),
    });
    pools.push(pool);
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
});
