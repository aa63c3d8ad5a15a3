import { execFile } from 'node:child_process';
import { lstatSync, statfsSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { HeldDisk } from '../../disk-policy.ts';

/**
 * The hold's file on a tenant disk (disk-policy.ts `holdPlan`): `.berth-hold` in the disk's root
 * folder, root's (600). Every disk's root folder is root's (sites, n8n: 711) or the database server's
 * (700), so no tenant can remove, shrink or read it, and it never shows in what the customer is told
 * the disk holds (`heldBytes` is taken off). It takes real blocks of the disk (fallocate(2), so no
 * tenant can write there) without writing them: the image does not grow on the host.
 *
 * A MySQL tenant's disk is held otherwise: MariaDB aborts when the disk ends under a statement
 * (database-disks.ts), so its guard (mariadb-quota.ts) stops the tenant `slackBytes` before the end,
 * and the hold moves that stop: its file there is sparse (it takes no block), and its size is taken
 * off what the guard lets the tenant write (`guardedFree`).
 */

const run = promisify(execFile);

export const HOLD_FILE = '.berth-hold';

/** The hold on the disk mounted at `point`: its size (what is held) and the blocks it takes. */
export function holdOf(point: string): { sizeBytes: number; takenBytes: number } {
  const info = lstatSync(path.join(point, HOLD_FILE), { throwIfNoEntry: false });
  if (!info?.isFile()) return { sizeBytes: 0, takenBytes: 0 };
  return { sizeBytes: info.size, takenBytes: info.blocks * 512 };
}

/** What a guarded tenant may still write: the disk's free space less the guard's slack and the hold. */
export const guardedFree = (freeBytes: number, slackBytes: number, holdBytes: number) =>
  Math.max(0, freeBytes - slackBytes - holdBytes);

/** A mounted disk as the hold counts it. */
export interface MountedDisk extends HeldDisk {
  /**
   * What the image of `imageBytes` with `takenBytes` on the host may still take there that no allowance
   * bounds: ext4's own blocks (its journal, its inode tables) are used from the start but written to the
   * image only as they are first needed. Counted outside the room the allowances are dealt from.
   */
  unboundBytes(imageBytes: number, takenBytes: number): number;
}

/**
 * How a guard keeps a disk (MySQL's, mariadb-quota.ts): it stops writers `slackBytes` before the end,
 * and a `ballast` file of root's (fallocate'd, never written) waits on it for crash recovery.
 */
export interface DiskGuard {
  slackBytes: number;
  ballast: string;
}

/**
 * The disk mounted at `point` as the hold counts it (`guard`: a guarded disk); undefined when nothing
 * is mounted there.
 */
export function heldDisk(point: string, guard?: DiskGuard): MountedDisk | undefined {
  try {
    // A file system of its own (its device differs from its parent folder's), as mountpoint(1) decides.
    if (statSync(point).dev === statSync(path.dirname(point)).dev) return undefined;
    const fs = statfsSync(point);
    const free = fs.bavail * fs.bsize;
    const hold = holdOf(point);
    // Files of root's that take blocks of the disk and none of the image: the hold's, the ballast.
    const unwritten =
      hold.takenBytes +
      (guard ? (statSync(path.join(point, guard.ballast), { throwIfNoEntry: false })?.blocks ?? 0) * 512 : 0);
    const unboundBytes = (imageBytes: number, takenBytes: number) =>
      Math.max(0, imageBytes - takenBytes - free - unwritten);
    return guard
      ? {
          freeBytes: guardedFree(free, guard.slackBytes, hold.sizeBytes),
          holdBytes: hold.sizeBytes,
          unboundBytes,
        }
      : { freeBytes: free, holdBytes: hold.sizeBytes, unboundBytes };
  } catch {
    return undefined;
  }
}

/** fallocate(2)'s number where we know it (Node has no binding for the call; perl, Essential in Debian, makes it). */
export const FALLOCATE_SYSCALL: Partial<Record<string, number>> = { x64: 285, arm64: 47 };

/**
 * Sets each disk's hold (by mount point) to its size in one process: smaller by truncate(2) (the blocks
 * are free at once), larger by fallocate(2), which takes what it can when a tenant has written
 * meanwhile (halving what it asks for), or on a guarded disk by truncate(2) alone (sparse); 0 deletes
 * the file. Answers false where fallocate's number is not known.
 *
 * On a database disk the root folder is the server's: whatever is found under the hold's name that is
 * not root's own regular file with one link (a link to one of the server's files, say) is unlinked and
 * a file of root's made in its place (O_EXCL), never truncated or grown.
 */
export async function writeHolds(holds: Map<string, { bytes: number; sparse: boolean }>): Promise<boolean> {
  const call = FALLOCATE_SYSCALL[process.arch];
  if (call === undefined) return false;
  if (holds.size === 0) return true;
  const args = [...holds].flatMap(([point, hold]) => [
    path.join(point, HOLD_FILE),
    String(Math.floor(hold.bytes)),
    hold.sparse ? 's' : 'b',
  ]);
  const script = `use Fcntl;
while (my ($f, $n, $how) = splice(@ARGV, 0, 3)) {
  $n = 0 + $n;
  if ($n == 0) { unlink $f; next }
  unlink $f if -l $f;
  sysopen(my $h, $f, O_RDWR | O_CREAT | O_NOFOLLOW, 0600) or do { warn "$f: $!\\n"; next };
  my @s = stat($h);
  unless (-f _ && $s[3] == 1 && $s[4] == 0) {
    close $h; unlink $f;
    sysopen($h, $f, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or do { warn "$f: $!\\n"; next };
  }
  my $now = -s $h;
  if ($n <= $now || $how eq 's') { truncate($h, $n) or warn "$f: $!\\n" }
  else { while ($n - $now >= 1048576 && syscall(${call}, fileno($h), 0, 0, $n) != 0) { $n = $now + int(($n - $now) / 2) } }
  close $h;
}`;
  await run('/usr/bin/perl', ['-e', script, '--', ...args]);
  return true;
}
