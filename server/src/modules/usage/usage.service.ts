import type { Db } from '../../db/database.ts';
import type { NewInstanceUsageSampleRow } from '../../db/tables/instance-usage.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { InstanceType } from '../../provisioning/instance-types.ts';
import type { UsageSample } from '../../provisioning/usage.ts';
import { FeatureUnavailableError } from '../instances/instance-features.ts';
import { resourcesOf } from '../instances/instance-resources.ts';
import type { InstancesService } from '../instances/instances.service.ts';
import type { DeployedInstance } from '../instances/lifecycle/lifecycle.service.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import {
  compactUsage,
  findBusiest,
  findLastOutOfMemory,
  findSeries,
  insertAlert,
  insertSamples,
  type SeriesSource,
  type UsagePointRow,
} from './usage.repository.ts';
import type { HostCapacityReport, UsagePoint, UsageRange, UsageReport } from './usage.schemas.ts';
import { createAlertRules, createStorageAlerts, type StorageAlertInput } from './usage-alerts.ts';

/**
 * What instances use, for their owners and the admin. Every SAMPLE_INTERVAL_MS the server asks the
 * driver (`driver.usage`, provisioning/usage.ts: whichever driver it is) for a sample of each deployed
 * instance, stores it, warns the owner where it calls for it (usage-alerts.ts: one of each kind per
 * instance per day) and sends the new point to the owner's open pages. One compaction job rolls the
 * samples into 5-minute rollups and keeps samples 24 hours, rollups 30 days.
 */
export const SAMPLE_INTERVAL_MS = 15_000;
export const COMPACT_INTERVAL_MS = 5 * 60_000;
const RAW_RETENTION_SECONDS = 24 * 3600;
const ROLLUP_RETENTION_SECONDS = 30 * 24 * 3600;
/** How often a sampling round also looks at the disks instances' disks live on (for the admins). */
const STORAGE_CHECK_MS = 60_000;

export interface UsageDeps {
  db: Db;
  now: () => Date;
  driver: Pick<ProvisioningDriver, 'usage'>;
  instances: Pick<InstancesService, 'listDeployed' | 'get'>;
  notifications: Pick<NotificationsService, 'notify' | 'notifyAdmins' | 'publishUsage'>;
}

export type UsageService = ReturnType<typeof createUsageService>;

/** What each range reads: the last hour and day from samples, the week from rollups. */
function sourceOf(range: UsageRange, now: Date): SeriesSource {
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  if (range === '1h') return { table: 'instance_usage_samples', stepSeconds: 15, since: ago(3600) };
  if (range === '24h') return { table: 'instance_usage_samples', stepSeconds: 300, since: ago(24 * 3600) };
  return { table: 'instance_usage_rollups', stepSeconds: 1800, since: ago(7 * 24 * 3600) };
}

const cpuOf = (cpuSeconds: number | null, intervalSeconds: number) =>
  cpuSeconds === null || intervalSeconds <= 0 ? null : cpuSeconds / intervalSeconds;

function pointOf(row: UsagePointRow): UsagePoint {
  const web = row.requests2xx !== null;
  return {
    at: row.at.toISOString(),
    cpu: cpuOf(row.cpuSeconds, row.intervalSeconds),
    memoryBytes: row.memoryBytes,
    memoryPeakBytes: row.memoryPeakBytes,
    memoryLimitBytes: row.memoryLimitBytes,
    diskUsedBytes: row.diskUsedBytes,
    diskLimitBytes: row.diskLimitBytes,
    requests: web
      ? {
          status2xx: row.requests2xx ?? 0,
          status3xx: row.requests3xx ?? 0,
          status4xx: row.requests4xx ?? 0,
          status5xx: row.requests5xx ?? 0,
          bytesSent: row.bytesSent ?? 0,
        }
      : null,
    oomKills: row.oomKills,
  };
}

function rowOf(sample: UsageSample): NewInstanceUsageSampleRow {
  return {
    instance_id: sample.instanceId,
    at: sample.at,
    interval_seconds: sample.intervalSeconds,
    cpu_seconds: sample.cpuSeconds,
    memory_bytes: sample.memoryBytes,
    memory_peak_bytes: sample.memoryPeakBytes,
    memory_limit_bytes: sample.memoryLimitBytes,
    oom_kills: sample.oomKills,
    disk_used_bytes: sample.diskUsedBytes,
    disk_limit_bytes: sample.diskLimitBytes,
    requests_2xx: sample.requests?.status2xx ?? null,
    requests_3xx: sample.requests?.status3xx ?? null,
    requests_4xx: sample.requests?.status4xx ?? null,
    requests_5xx: sample.requests?.status5xx ?? null,
    bytes_sent: sample.requests?.bytesSent ?? null,
  };
}

/** A sample as a point of the last hour (what the stream sends). */
const livePointOf = (sample: UsageSample): UsagePoint =>
  pointOf({
    at: sample.at,
    intervalSeconds: sample.intervalSeconds,
    cpuSeconds: sample.cpuSeconds,
    memoryBytes: sample.memoryBytes,
    memoryPeakBytes: sample.memoryPeakBytes,
    memoryLimitBytes: sample.memoryLimitBytes,
    oomKills: sample.oomKills,
    diskUsedBytes: sample.diskUsedBytes,
    diskLimitBytes: sample.diskLimitBytes,
    requests2xx: sample.requests?.status2xx ?? null,
    requests3xx: sample.requests?.status3xx ?? null,
    requests4xx: sample.requests?.status4xx ?? null,
    requests5xx: sample.requests?.status5xx ?? null,
    bytesSent: sample.requests?.bytesSent ?? null,
  });

/** The last non-null value and the highest of `values`. */
function currentAndPeak(values: (number | null)[]): { current: number | null; peak: number | null } {
  const known = values.filter((value): value is number => value !== null);
  return { current: known.at(-1) ?? null, peak: known.length > 0 ? Math.max(...known) : null };
}

function summaryOf(points: UsagePoint[]): UsageReport['summary'] {
  const last = <T>(pick: (p: UsagePoint) => T | null) =>
    points
      .map(pick)
      .filter((value): value is T => value !== null)
      .at(-1) ?? null;
  const web = points.filter((p) => p.requests !== null).map((p) => p.requests);
  const sum = (pick: (r: NonNullable<UsagePoint['requests']>) => number) =>
    web.reduce((total, r) => total + (r ? pick(r) : 0), 0);
  const memory = currentAndPeak(points.map((p) => p.memoryBytes));
  const requests =
    web.length === 0
      ? null
      : {
          status2xx: sum((r) => r.status2xx),
          status3xx: sum((r) => r.status3xx),
          status4xx: sum((r) => r.status4xx),
          status5xx: sum((r) => r.status5xx),
          bytesSent: sum((r) => r.bytesSent),
          total: sum((r) => r.status2xx + r.status3xx + r.status4xx + r.status5xx),
        };
  return {
    cpu: currentAndPeak(points.map((p) => p.cpu)),
    memory: {
      current: memory.current,
      peak: currentAndPeak(points.map((p) => p.memoryPeakBytes ?? p.memoryBytes)).peak,
      limit: last((p) => p.memoryLimitBytes),
    },
    disk: { used: last((p) => p.diskUsedBytes), limit: last((p) => p.diskLimitBytes) },
    requests,
  };
}

export function createUsageService(deps: UsageDeps) {
  const { db, now } = deps;
  const rules = createAlertRules();
  const storageAlerts = createStorageAlerts();
  let storageCheckedAt = 0;

  async function warn(instance: DeployedInstance, sample: UsageSample): Promise<void> {
    for (const alert of rules.judge(instance, sample)) {
      if (!(await insertAlert(db, instance.id, alert.kind, sample.at))) continue;
      await deps.notifications.notify(instance.userId, {
        type: 'instance',
        title: alert.title,
        message: alert.message,
      });
    }
  }

  /** Tells the admins of a disk past a mark (usage-alerts.ts), at most every STORAGE_CHECK_MS. */
  async function watchStorage(): Promise<void> {
    const usage = deps.driver.usage;
    const since = now().getTime() - storageCheckedAt;
    if (!usage || (since >= 0 && since < STORAGE_CHECK_MS)) return;
    storageCheckedAt = now().getTime();
    const host = await usage.capacity();
    const disks: StorageAlertInput[] = [
      ...(host.storage ? [{ where: 'this server', report: host.storage }] : []),
      ...(host.places ?? []).flatMap((place) =>
        place.storage ? [{ where: `${place.node} of ${place.region}`, report: place.storage }] : [],
      ),
    ];
    for (const disk of disks) {
      for (const alert of storageAlerts.judge(disk))
        await deps.notifications.notifyAdmins({ type: 'system', title: alert.title, message: alert.message });
    }
  }

  return {
    /**
     * One round: a sample of every deployed instance from the driver, stored, judged for warnings and
     * sent to the owners' open pages. Answers how many instances were sampled.
     */
    async collect(): Promise<number> {
      const usage = deps.driver.usage;
      if (!usage) return 0;
      const instances = await deps.instances.listDeployed();
      const byId = new Map(instances.map((instance) => [instance.id, instance]));
      const samples = (await usage.sample(instances.map(({ id, type }) => ({ id, type })))).filter((sample) =>
        byId.has(sample.instanceId),
      );
      await insertSamples(db, samples.map(rowOf));
      for (const sample of samples) {
        const instance = byId.get(sample.instanceId);
        if (!instance) continue;
        await warn(instance, sample);
        await deps.notifications.publishUsage(instance.userId, instance.id, livePointOf(sample));
      }
      await watchStorage();
      return samples.length;
    },

    /** Rolls samples into 5-minute rollups and drops what is past its retention. */
    compact: () =>
      compactUsage(db, now(), { rawSeconds: RAW_RETENTION_SECONDS, rollupSeconds: ROLLUP_RETENTION_SECONDS }),

    /**
     * The owner's instance over `range`: its points, current and peak values, limits and last OOM; a
     * 409 with the engine's reason where this server does not measure its type's usage.
     */
    async report(userId: string, id: string, range: UsageRange): Promise<UsageReport> {
      const instance = await deps.instances.get(userId, id);
      const offer = instance.features.usage;
      if (offer && !offer.available) throw new FeatureUnavailableError('usage', offer.reason ?? '');
      const source = sourceOf(range, now());
      const [rows, lastOom] = await Promise.all([findSeries(db, id, source), findLastOutOfMemory(db, id)]);
      const points = rows.map(pointOf);
      const resources = resourcesOf(instance.deploymentConfig.memory, instance.deploymentConfig.cpu);
      const usage = deps.driver.usage;
      const { limits, sharedServer } =
        usage && resources
          ? usage.limits({ id, type: instance.product }, resources)
          : { limits: [], sharedServer: false };
      const ownCpu = limits.some((limit) => limit.label === 'CPU' && limit.enforced);
      return {
        instanceId: id,
        range,
        stepSeconds: source.stepSeconds,
        measured: usage !== undefined,
        limits,
        sharedServer,
        cpuLimit: ownCpu && resources ? resources.cpus : null,
        lastOutOfMemoryAt: lastOom?.toISOString() ?? null,
        summary: summaryOf(points),
        points,
      };
    },

    /** The admin's view: memory and CPU sold against the host's, its disk, and the ten busiest instances. */
    async capacity(): Promise<HostCapacityReport | undefined> {
      const usage = deps.driver.usage;
      if (!usage) return undefined;
      const [host, instances, busy] = await Promise.all([
        usage.capacity(),
        deps.instances.listDeployed(),
        findBusiest(db, new Date(now().getTime() - 3600_000), 10),
      ]);
      const byId = new Map(instances.map((instance) => [instance.id, instance]));
      let soldBytes = 0;
      let soldCpus = 0;
      for (const instance of instances) {
        const resources = resourcesOf(instance.memory, instance.cpu);
        soldBytes += (resources?.memoryMb ?? 0) * 1024 * 1024;
        soldCpus += resources?.cpus ?? 0;
      }
      return {
        memory: { hostBytes: host.memoryBytes, soldBytes },
        cpu: { hostCpus: host.cpus, soldCpus },
        disk: { totalBytes: host.diskBytes, freeBytes: host.diskFreeBytes },
        instances: instances.length,
        storage: host.storage ?? null,
        enforcement: host.enforcement,
        places: host.places ?? [],
        busiest: busy.flatMap((row) => {
          const instance = byId.get(row.instanceId);
          if (!instance) return [];
          return [
            {
              id: instance.id,
              name: instance.name,
              type: instance.type satisfies InstanceType,
              ownerId: instance.userId,
              cpu: cpuOf(row.cpuSeconds, row.intervalSeconds) ?? 0,
              memoryBytes: row.memoryBytes,
              memoryLimitBytes: row.memoryLimitBytes,
              requests: row.requests,
            },
          ];
        }),
      };
    },
  };
}
