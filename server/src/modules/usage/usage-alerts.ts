import { HIGH_WATER, type StorageReport, WARNING } from '../../provisioning/disk-policy.ts';
import type { UsageSample } from '../../provisioning/usage.ts';
import { typeName } from '../instances/instance-catalog.ts';
import type { DeployedInstance } from '../instances/lifecycle/lifecycle.service.ts';

/**
 * When an instance's usage deserves a warning (sent as a notification to its owner; the usage service
 * keeps it to one of each kind per instance per day):
 *
 * - `memory-high`: above 90 % of its memory in every sample for 5 minutes;
 * - `out-of-memory`: the system stopped one of its processes for memory (it was restarted);
 * - `disk-80`, `disk-95`: its disk passed 80 %, 95 % full;
 * - `disk-held`: its disk takes nothing more though it is not full: the server's disk holds its room
 *   back (the hold, disk-policy.ts), which the admins are told of too (`storage-held`).
 */
export type AlertKind =
  | 'memory-high'
  | 'out-of-memory'
  | 'disk-80'
  | 'disk-95'
  | 'disk-held'
  | 'storage-high'
  | 'storage-full'
  | 'storage-held';

export interface Alert {
  kind: AlertKind;
  title: string;
  message: string;
}

const HIGH_MEMORY_SHARE = 0.9;
const HIGH_MEMORY_MS = 5 * 60_000;

const MIB = 1024 * 1024;

/** Below this a disk that is not full takes nothing more: the hold had no more room to deal it. */
const HELD_ROOM_BYTES = MIB;

/** "820 MiB", "1.5 GiB". */
function sizeText(bytes: number): string {
  const mib = bytes / MIB;
  return mib < 1024 ? `${Math.round(mib)} MiB` : `${Number((mib / 1024).toFixed(1))} GiB`;
}

/** "14:02 UTC". */
const clock = (at: Date) => `${at.toISOString().slice(11, 16)} UTC`;

/** The judge of each instance's samples in turn; remembers since when each one's memory is high. */
export function createAlertRules() {
  const highSince = new Map<string, Date>();

  return {
    /** The warnings `sample` of `instance` calls for (before the once-a-day rule). */
    judge(instance: DeployedInstance, sample: UsageSample): Alert[] {
      const what = `Your ${typeName(instance.type)} instance "${instance.name}"`;
      const alerts: Alert[] = [];
      const { memoryBytes, memoryLimitBytes } = sample;
      if (memoryBytes !== null && memoryLimitBytes && memoryBytes > HIGH_MEMORY_SHARE * memoryLimitBytes) {
        const since = highSince.get(instance.id) ?? sample.at;
        highSince.set(instance.id, since);
        if (sample.at.getTime() - since.getTime() >= HIGH_MEMORY_MS) {
          alerts.push({
            kind: 'memory-high',
            title: 'High memory use',
            message: `${what} has used more than 90% of its memory (${instance.memory}) for 5 minutes. If it needs more, the system stops its largest process.`,
          });
        }
      } else {
        highSince.delete(instance.id);
      }
      if (sample.oomKills > 0) {
        alerts.push({
          kind: 'out-of-memory',
          title: 'Restarted after running out of memory',
          message: `${what} ran out of its memory (${instance.memory}) at ${clock(sample.at)}: the system stopped the process using the most, and it was restarted.`,
        });
      }
      const { diskUsedBytes: used, diskLimitBytes: size } = sample;
      if (used !== null && size) {
        const share = used / size;
        const percent = Math.floor(share * 100);
        const disk = (threshold: 80 | 95): Alert => ({
          kind: `disk-${threshold}`,
          title: `Disk ${threshold}% full`,
          message: `${what} uses ${sizeText(used)} of its ${sizeText(size)} disk (${percent}%). Once it is full, new files and uploads fail.`,
        });
        if (share >= 0.95) alerts.push(disk(95));
        else if (share >= 0.8) alerts.push(disk(80));
        const room = sample.diskRoomBytes;
        if (
          room !== undefined &&
          room !== null &&
          room < HELD_ROOM_BYTES &&
          size - used > 2 * HELD_ROOM_BYTES
        ) {
          alerts.push({
            kind: 'disk-held',
            title: 'Disk paused for lack of space',
            message: `${what} cannot save new files for now: it uses ${sizeText(used)} of its ${sizeText(size)} disk, but this server's disk is fuller than planned. Our team has been told; new files and uploads work again on their own once there is room, and nothing stored is lost.`,
          });
        }
      }
      return alerts;
    },
    /** Forgets an instance that is no longer sampled. */
    forget(id: string) {
      highSince.delete(id);
    },
  };
}

/** A disk where instances' disks live, as the admins read of it: "this server", "worker-2 of eu-west-1". */
export interface StorageAlertInput {
  where: string;
  report: StorageReport;
}

/**
 * The admins' warnings about a disk instances' disks live on (disk-policy.ts): past WARNING of its room
 * once, and again past HIGH_WATER (new instances are refused there). Each is sent once until that disk
 * is back below the mark (5 points under it, so that a disk at the edge is not told of again and again).
 * And once when the hold starts dealing that disk's room out (its instances can no longer all reach the
 * size they were sold at once), again only after it stopped.
 */
export function createStorageAlerts() {
  const level = new Map<string, 0 | 1 | 2>();
  const held = new Set<string>();

  return {
    judge(input: StorageAlertInput): Alert[] {
      return [fillAlert(input), holdAlert(input)].filter((alert) => alert !== undefined);
    },
  };

  function holdAlert({ where, report }: StorageAlertInput): Alert | undefined {
    const allowance = report.holdAllowanceBytes;
    if (allowance === null) {
      held.delete(where);
      return undefined;
    }
    if (held.has(where)) return undefined;
    held.add(where);
    return {
      kind: 'storage-held',
      title: 'Disk held: instances cannot all reach their size',
      message: `The disk of ${where} has less room outside the reserve than its instances' disks could still take, so each is held: it may write about ${sizeText(allowance)} more at once, and more as it writes. A customer who writes past that is told there is no space left, though their disk is not full. Free or add space, or promise less (DISK_OVERCOMMIT, ${report.overcommit} now).`,
    };
  }

  function fillAlert({ where, report }: StorageAlertInput): Alert | undefined {
    const share = report.useShare;
    const now = share >= HIGH_WATER ? 2 : share >= WARNING ? 1 : 0;
    const before = level.get(where) ?? 0;
    if (now < before) {
      const markOf = before === 2 ? HIGH_WATER : WARNING;
      if (share < markOf - 0.05) level.set(where, now);
      return undefined;
    }
    level.set(where, now);
    if (now === before || now === 0) return undefined;
    const used = `${sizeText(report.usedBytes)} of ${sizeText(report.sizeBytes - report.reserveBytes)} outside the reserve (${Math.floor(share * 100)}%)`;
    const promised = `${sizeText(report.promisedBytes)} promised to instances' disks, ${sizeText(report.tenantUsedBytes)} written`;
    return now === 2
      ? {
          kind: 'storage-full',
          title: 'Disk full: new instances refused',
          message: `The disk of ${where} uses ${used}, past the high-water mark (${HIGH_WATER * 100}%): new instances are refused there until space is freed or added. ${promised}.`,
        }
      : {
          kind: 'storage-high',
          title: 'Disk filling up',
          message: `The disk of ${where} uses ${used}; at ${HIGH_WATER * 100}% new instances are refused there. ${promised}; room for about ${report.headroomSites} more sites (Admin Panel → Server).`,
        };
  }
}
