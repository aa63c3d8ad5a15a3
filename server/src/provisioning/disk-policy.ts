/**
 * How much disk a host promises its tenants, as real hosts do: thin.
 *
 * Every tenant disk is a sparse image of the size its customer was sold; the kernel keeps each tenant
 * within it (ENOSPC), whatever the host has. What the host promises (the sum of those sizes) may pass
 * what it has, by the operator's ratio DISK_OVERCOMMIT, because an idle site writes a few MB of its
 * 1 GiB. A new disk is refused when either rule says so:
 *   - promises: everything promised, the new disk included, must stay within DISK_OVERCOMMIT × the real
 *     space for tenants (what is free, plus what their disks take now, minus the platform's reserve);
 *   - real use: the file system's use must stay below the high-water mark, HIGH_WATER of its size minus
 *     the reserve, so that there is room for what the existing tenants write next.
 * At WARNING of that same measure the admins are told (usage service), and Admin → Server shows the
 * figures (`storageReport`). With DISK_OVERCOMMIT = 1 the first rule is the strict one: every byte
 * promised is free (or written) outside the reserve, so tenants filling their disks never reach it.
 */

/** What a file system holds, and what tenants were promised on it. */
export interface DiskFigures {
  /** As df counts it: used + available to an unprivileged writer. */
  sizeBytes: number;
  usedBytes: number;
  freeBytes: number;
  /** The sizes of every tenant disk (a pool's spare too): what is promised. */
  promisedBytes: number;
  /** What those disks take on the host now. */
  tenantUsedBytes: number;
  /** How many tenant disks there are. */
  disks: number;
}

export interface DiskPolicy {
  /** Kept for the platform (DISK_RESERVE_MB). */
  reserveBytes: number;
  /** Promised ÷ real space allowed (DISK_OVERCOMMIT), at least 1. */
  overcommit: number;
}

/**
 * DISK_OVERCOMMIT when the operator says nothing. With the hold (below) the reserve is never the
 * tenants', whatever the ratio; the ratio decides how much each tenant may write at once when the
 * host is full of promises: at 4, a host promised to its limit still deals every disk about a fifth
 * of its size beyond what it holds (the hold's level is HOLD_SHARE × room ÷ disks, and the disks'
 * sizes add up to 4 × room), and tops a writer up every round.
 */
export const DEFAULT_DISK_OVERCOMMIT = 4;

/** Real use past this share of (size − reserve) refuses new disks. */
export const HIGH_WATER = 0.85;
/** Real use past this share tells the admins. */
export const WARNING = 0.75;

export interface StorageReport {
  sizeBytes: number;
  usedBytes: number;
  freeBytes: number;
  reserveBytes: number;
  promisedBytes: number;
  tenantUsedBytes: number;
  overcommit: number;
  /** What may be promised in all: overcommit × (free + tenants' use − reserve). */
  promiseLimitBytes: number;
  /** Real use past which new disks are refused. */
  highWaterBytes: number;
  /** usedBytes ÷ (size − reserve): past WARNING the admins are told, past HIGH_WATER deploys stop. */
  useShare: number;
  /** About how many more sites (their disk and database) fit under both rules. */
  headroomSites: number;
  /** While the hold deals allowances: what each disk may write at once (the level); else null. */
  holdAllowanceBytes: number | null;
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${Math.floor(bytes / MIB)} MiB`;

function limitsOf(f: DiskFigures, p: DiskPolicy) {
  const space = Math.max(0, f.sizeBytes - p.reserveBytes);
  const tenantSpace = Math.max(0, f.freeBytes + f.tenantUsedBytes - p.reserveBytes);
  return {
    promiseLimitBytes: Math.floor(p.overcommit * tenantSpace),
    highWaterBytes: Math.floor(HIGH_WATER * space),
    useShare: space > 0 ? f.usedBytes / space : 1,
  };
}

/**
 * Below this allowance (what the hold deals each disk, below) a new instance could not even finish
 * its deploy (WordPress writes its tables, its compiled scripts): new disks are refused.
 */
const HOLD_FLOOR_BYTES = 32 * MIB;

/**
 * Why a new disk of `bytes` may not be made (for the operator's log), or undefined when it may
 * (`holdAllowanceBytes`: what the hold deals each disk now, null when it holds nothing). The deploy's
 * customer reads only that the server has no storage left (StorageExhaustedError).
 */
export function refusalOf(
  f: DiskFigures,
  p: DiskPolicy,
  bytes: number,
  holdAllowanceBytes: number | null = null,
): string | undefined {
  const { promiseLimitBytes, highWaterBytes } = limitsOf(f, p);
  if (holdAllowanceBytes !== null && holdAllowanceBytes < HOLD_FLOOR_BYTES)
    return `a new ${mib(bytes)} disk refused: the hold deals each disk only ${mib(holdAllowanceBytes)} (less than ${mib(HOLD_FLOOR_BYTES)}): what tenants' disks could still take, ext4's own blocks included, fills the room outside the reserve`;
  if (f.promisedBytes + bytes > promiseLimitBytes)
    return `a new ${mib(bytes)} disk would bring what is promised to ${mib(f.promisedBytes + bytes)}, past ${mib(promiseLimitBytes)} (DISK_OVERCOMMIT ${p.overcommit} × ${mib(f.freeBytes)} free + ${mib(f.tenantUsedBytes)} used by tenants − ${mib(p.reserveBytes)} kept in reserve by DISK_RESERVE_MB)`;
  if (f.usedBytes >= highWaterBytes)
    return `a new ${mib(bytes)} disk refused: the file system uses ${mib(f.usedBytes)}, past its high-water mark ${mib(highWaterBytes)} (${HIGH_WATER * 100} % of ${mib(f.sizeBytes)} − the reserve)`;
  return undefined;
}

/**
 * The admin's figures. `site` is what one more site would promise (its disk and its database's); its
 * real use is taken as the average of the disks there are (or, with none, its promise ÷ overcommit).
 */
export function storageReport(
  f: DiskFigures,
  p: DiskPolicy,
  site: { promisedBytes: number; disks: number },
  holdAllowanceBytes: number | null = null,
): StorageReport {
  const limits = limitsOf(f, p);
  const usePerSite =
    f.disks > 0 ? (f.tenantUsedBytes / f.disks) * site.disks : site.promisedBytes / p.overcommit;
  const byPromise = Math.floor((limits.promiseLimitBytes - f.promisedBytes) / site.promisedBytes);
  const byUse = Math.floor((limits.highWaterBytes - f.usedBytes) / Math.max(MIB, usePerSite));
  return {
    sizeBytes: f.sizeBytes,
    usedBytes: f.usedBytes,
    freeBytes: f.freeBytes,
    reserveBytes: p.reserveBytes,
    promisedBytes: f.promisedBytes,
    tenantUsedBytes: f.tenantUsedBytes,
    overcommit: p.overcommit,
    ...limits,
    headroomSites: Math.max(0, Math.min(byPromise, byUse)),
    holdAllowanceBytes,
  };
}

/**
 * The hold: what keeps tenants out of the reserve when more is promised than there is.
 *
 * Promising thin is safe only if the disks cannot all grow at once past what is free. So whenever
 * what the tenant disks could still take (their free space, `potential`) passes the room outside the
 * reserve (free − reserve − what other images could still take), each disk is given an allowance,
 * and the rest of its free space is held by a file of root's on it (`holdBytes`), which no tenant can
 * write, remove or see. Writes past the allowance fail (ENOSPC) as at the end of the disk, so the
 * disks together never take the reserve, however fast and by whichever process they write.
 *
 * Allowances are dealt like water filling: every disk gets the same level (a disk with less free
 * space than the level keeps all of it), over HOLD_SHARE of the room; the rest of the room is kept
 * to top up a disk that has spent three quarters of its allowance (a writer) without taking from the
 * others. A disk over its allowance (a new one) is brought down to it alone. Only when the spare
 * cannot top the writers up are all disks dealt again. While the disks' free space fits
 * in the room, nothing is held: each tenant writes up to its own size, as sold.
 */
export interface HeldDisk {
  /** What an unprivileged writer may still write there now. */
  freeBytes: number;
  /** What the hold file takes there now. */
  holdBytes: number;
}

/** Share of the room dealt at once; the rest tops up writers. */
export const HOLD_SHARE = 0.8;
/** Changes smaller than this are not worth a write. */
const HOLD_STEP = MIB;

/** The level that deals `room` over disks that could each take `potentials[i]` (water filling). */
export function holdLevel(potentials: number[], room: number): number {
  const sorted = [...potentials].sort((a, b) => a - b);
  let left = Math.max(0, room);
  for (let i = 0; i < sorted.length; i += 1) {
    const even = left / (sorted.length - i);
    if ((sorted[i] ?? 0) > even) return Math.floor(even);
    left -= sorted[i] ?? 0;
  }
  return Number.POSITIVE_INFINITY;
}

export interface HoldPlan {
  /** The hold's sizes to write, by disk index (0: no hold); empty when nothing needs to change. */
  sizes: Map<number, number>;
  /** What each disk is dealt (the level) while the hold deals; null while the disks fit. */
  allowanceBytes: number | null;
}

/** The hold for disks as they are now and `roomBytes` outside the reserve. */
export function holdPlan(disks: HeldDisk[], roomBytes: number): HoldPlan {
  const plan = new Map<number, number>();
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const rows = disks.map((disk, index) => ({ index, ...disk, potential: disk.freeBytes + disk.holdBytes }));
  if (sum(rows.map((row) => row.potential)) <= roomBytes) {
    for (const row of rows) if (row.holdBytes > 0) plan.set(row.index, 0);
    return { sizes: plan, allowanceBytes: null };
  }
  const level = holdLevel(
    rows.map((row) => row.potential),
    HOLD_SHARE * roomBytes,
  );
  const dealt = rows.map((row) => ({ ...row, allowance: Math.min(row.potential, level) }));
  const writers = dealt.filter(
    (row) => row.freeBytes < row.allowance / 4 && row.allowance > row.freeBytes + HOLD_STEP,
  );
  const topUps = sum(writers.map((row) => row.allowance - row.freeBytes));
  // Disks over their allowance come down to it, the furthest over first (a new disk, mostly), until
  // the spare tops the writers up; the others keep what they have.
  let spare = roomBytes - sum(rows.map((row) => row.freeBytes));
  const over = dealt
    .filter((row) => row.freeBytes > row.allowance)
    .sort((a, b) => b.freeBytes - b.allowance - (a.freeBytes - a.allowance));
  const lowered = [];
  for (const row of over) {
    if (spare >= topUps) break;
    lowered.push(row);
    spare += row.freeBytes - row.allowance;
  }
  // Dealt again when even that cannot top the writers up: every disk to its allowance.
  const changed =
    spare >= topUps
      ? [...lowered, ...writers]
      : dealt.filter((row) => row.freeBytes > row.allowance || row.allowance - row.freeBytes > HOLD_STEP);
  for (const row of changed) plan.set(row.index, row.potential - row.allowance);
  return { sizes: plan, allowanceBytes: level };
}
