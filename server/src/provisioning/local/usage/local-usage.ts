import { availableParallelism, totalmem } from 'node:os';
import type { StorageReport } from '../../disk-policy.ts';
import type { Engines } from '../../driver.ts';
import type { InstanceType } from '../../instance-types.ts';
import type { AppliedLimit, AppliedLimits, HostCapacity, UsageCapability, UsageSample } from '../../usage.ts';
import { describeTenantLimits } from '../databases/tenant-limits.ts';
import type { AccessLogReader } from '../front-door/access-log.ts';
import type { ControlGroups, GroupStats } from '../host/control-groups.ts';
import { diskUsage } from '../host/tenant-disks.ts';

/**
 * What the local driver measures of its instances (driver.usage):
 *
 * - sites and n8n instances: their control group (host/control-groups.ts: CPU time, memory, peak, the
 *   kernel's kills for memory), their disk, and what the front door answered on their hosts (Caddy's
 *   access log, front-door/access-log.ts);
 * - MySQL and PostgreSQL instances with a server of their own (databases/instance-servers.ts): its
 *   control group and their database's disk; those made before, tenants of a shared server, their disk
 *   only (no control group can split one server's memory or CPU between its tenants: they have no group,
 *   and the Configuration card of a shared server says so).
 *
 * Every path read here is the kernel's (cgroupfs), the front door's own log, or a mount point in root's
 * folders (statfs): nothing a tenant names or can link. Counters are turned into what happened since
 * the previous sample of the same instance (kept in memory: after a server restart the first sample of
 * each instance covers no interval).
 */
export interface LocalUsageDeps {
  groups: ControlGroups;
  engines: Engines;
  /** The front door's access log; absent without a front door (no sites, no n8n). */
  accessLog: AccessLogReader | undefined;
  /** The data root: its file system holds every tenant disk (capacity). */
  dataRoot: string;
  /** The disk policy's figures for the admin (disk-policy.ts). */
  storage(): Promise<StorageReport>;
  /** Whether a database instance has a server of its own, in its control group (instance-servers.ts). */
  ownsDatabaseServer(id: string): boolean;
  now?: () => Date;
}

const WEB_TYPES: ReadonlySet<InstanceType> = new Set(['wordpress', 'n8n']);
const SQL_TYPES: ReadonlySet<InstanceType> = new Set(['mysql', 'postgresql']);

/** '4GB', '512MB'. */
function memoryText(mb: number): string {
  return mb % 1024 === 0 ? `${mb / 1024}GB` : `${mb}MB`;
}

interface Previous {
  at: Date;
  cpuSeconds: number;
  oomKills: number;
}

export function localUsage(deps: LocalUsageDeps): UsageCapability {
  const now = deps.now ?? (() => new Date());
  const previous = new Map<string, Previous>();

  async function disk(type: InstanceType, id: string) {
    try {
      return (await deps.engines[type].storage?.usage(id)) ?? null;
    } catch {
      // Not there (yet): a site whose disk is not mounted, a database being made.
      return null;
    }
  }

  /** The group's counters as what happened since the previous sample (a new group counts from zero). */
  function sinceBefore(id: string, at: Date, stats: GroupStats | undefined) {
    const before = previous.get(id);
    if (!stats)
      return { intervalSeconds: before ? (at.getTime() - before.at.getTime()) / 1000 : 0, cpu: null, oom: 0 };
    previous.set(id, { at, cpuSeconds: stats.cpuSeconds, oomKills: stats.oomKills });
    if (!before) return { intervalSeconds: 0, cpu: 0, oom: 0 };
    const fresh = stats.cpuSeconds < before.cpuSeconds || stats.oomKills < before.oomKills;
    return {
      intervalSeconds: (at.getTime() - before.at.getTime()) / 1000,
      cpu: fresh ? stats.cpuSeconds : stats.cpuSeconds - before.cpuSeconds,
      oom: fresh ? stats.oomKills : stats.oomKills - before.oomKills,
    };
  }

  return {
    async sample(instances) {
      const at = now();
      const requests = (await deps.accessLog?.read().catch(() => undefined)) ?? new Map();
      const wanted = new Set(instances.map((instance) => instance.id));
      for (const id of previous.keys()) if (!wanted.has(id)) previous.delete(id);
      const samples = await Promise.all(
        instances.map(async ({ id, type }): Promise<UsageSample | undefined> => {
          const web = WEB_TYPES.has(type);
          const grouped = web || SQL_TYPES.has(type);
          const [stats, storage] = await Promise.all([
            grouped ? deps.groups.stats(id).catch(() => undefined) : undefined,
            disk(type, id),
          ]);
          if (!stats && !storage) return undefined;
          const since = sinceBefore(id, at, stats);
          return {
            instanceId: id,
            at,
            intervalSeconds: since.intervalSeconds,
            cpuSeconds: since.cpu,
            memoryBytes: stats?.memoryBytes ?? null,
            memoryPeakBytes: stats?.memoryPeakBytes ?? null,
            memoryLimitBytes: stats?.memoryLimitBytes ?? null,
            oomKills: since.oom,
            diskUsedBytes: storage?.usedBytes ?? null,
            diskLimitBytes: storage?.limitBytes ?? null,
            diskRoomBytes: storage?.roomBytes ?? null,
            requests: web
              ? (requests.get(id) ?? { status2xx: 0, status3xx: 0, status4xx: 0, status5xx: 0, bytesSent: 0 })
              : null,
          };
        }),
      );
      return samples.filter((sample): sample is UsageSample => sample !== undefined);
    },

    async capacity(): Promise<HostCapacity> {
      const [disk, storage] = await Promise.all([diskUsage(deps.dataRoot), deps.storage()]);
      return {
        storage,
        memoryBytes: totalmem(),
        cpus: availableParallelism(),
        diskBytes: disk.sizeBytes,
        diskFreeBytes: disk.freeBytes,
        enforcement:
          deps.groups.mode === 'none' ? 'not enforced (no control groups)' : `cgroup ${deps.groups.mode}`,
      };
    },

    limits({ id, type }, resources): AppliedLimits {
      const sql = type === 'mysql' || type === 'postgresql';
      // A database made before servers per instance (until its move), or on an operator's server.
      if (sql && !deps.ownsDatabaseServer(id))
        return { sharedServer: true, limits: describeTenantLimits(type, resources) };
      if (!WEB_TYPES.has(type) && !sql) return { sharedServer: false, limits: [] };
      const enforced = deps.groups.mode !== 'none';
      const how = enforced
        ? 'for this instance alone, enforced by the kernel'
        : 'not enforced on this server';
      const own: AppliedLimit[] = [
        { label: 'Memory', value: `${memoryText(resources.memoryMb)} ${how}`, enforced },
        { label: 'CPU', value: `${resources.cpus} vCPU ${how}`, enforced },
      ];
      return {
        sharedServer: false,
        limits: sql ? [...own, ...describeTenantLimits(type, resources).slice(2)] : own,
      };
    },
  };
}
