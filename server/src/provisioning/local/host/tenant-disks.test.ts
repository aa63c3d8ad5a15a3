import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostDisk, makeHostDisk } from '../../../../test/provisioning/host-disk.ts';
import { journalMbOf } from '../../ext4.ts';
import { diskPool, isMounted } from './tenant-disks.ts';

/**
 * Tenants' disks made before disks had a small journal: ext4's default journal (32 MiB for a site's
 * 1 GiB disk) is what a disk takes on the host beyond any allowance of the hold.
 * At its next mount it gets the small one, its files untouched, and the host gets the old one's blocks.
 */

const run = promisify(execFile);
const MIB = 1024 * 1024;
let host: HostDisk;

beforeAll(async () => {
  host = await makeHostDisk(512);
}, 60_000);

afterAll(async () => {
  await host?.remove();
});

const journalMb = async (image: string) =>
  journalMbOf((await run('/usr/sbin/dumpe2fs', ['-h', image])).stdout);
const hostBytes = (image: string) => statSync(image).blocks * 512;

describe('a tenant disk with an old journal', () => {
  it('gets the small journal at its next mount, keeps its files, and gives the old journal’s blocks back', async () => {
    const disks = path.join(host.dir, 'disks');
    const point = path.join(host.dir, 'point');
    await mkdir(disks, { recursive: true, mode: 0o700 });
    const image = path.join(disks, 't1.img');
    // As disks were made before: ext4's default journal, written out when the disk was made.
    await run('/usr/bin/truncate', ['-s', '1024M', image]);
    await run('/usr/sbin/mkfs.ext4', ['-q', '-F', '-m', '0', image]);
    await mkdir(point);
    await run('/usr/bin/mount', ['-o', 'loop', image, point]);
    await writeFile(path.join(point, 'index.php'), '<?php echo "still here";');
    await run('/usr/bin/umount', [point]);
    const oldJournal = (await journalMb(image)) ?? 0;
    const before = hostBytes(image);
    expect(oldJournal).toBeGreaterThanOrEqual(16);

    const logs: string[] = [];
    const pool = diskPool({
      dir: disks,
      sizeMb: 1024,
      names: /^t[0-9]+$/,
      label: 'journal-test',
      rootOwner: { uid: 0, gid: 0 },
      rootMode: 0o755,
      log: (line) => logs.push(line),
    });
    try {
      expect(await pool.mount('t1', point)).toBe(true);
      expect(isMounted(point)).toBe(true);
      expect(await readFile(path.join(point, 'index.php'), 'utf8')).toBe('<?php echo "still here";');
      await pool.unmount(point);
      expect(await journalMb(image)).toBe(4);
      console.log(
        `old journal ${oldJournal} MiB → 4 MiB; the image takes ${(before / MIB).toFixed(1)} → ${(hostBytes(image) / MIB).toFixed(1)} MiB on the host`,
      );
      expect(before - hostBytes(image)).toBeGreaterThan((oldJournal - 4) * MIB * 0.9);
      expect(logs).toEqual([`disk t1.img: its ${oldJournal} MiB journal replaced by a 4 MiB one`]);

      // Once small, it is left as it is.
      await pool.mount('t1', point);
      await pool.unmount(point);
      expect(logs).toHaveLength(1);
    } finally {
      if (isMounted(point)) await run('/usr/bin/umount', ['--lazy', point]);
    }
  });
});
