import type { StorageReport } from './disk-policy.ts';
import type { Resources } from './engine.ts';
import type { InstanceType } from './instance-types.ts';

/**
 * What a driver measures of the instances it runs, and what it can give them: the usage module
 * (modules/usage) asks `driver.usage` every 15 s and never knows which driver answers. The local driver
 * reads each instance's control group, disk and the front door's access log (local/usage/); the swarm
 * driver its containers' stats, their disks and its front doors' logs (swarm/usage.ts). A driver without
 * it measures nothing and the Usage tab says so.
 */
export interface UsageCapability {
  /**
   * One sample of each of `instances` the driver runs now (an instance it does not know, or cannot
   * measure yet, is left out). Counters (CPU time, requests, kills) are what happened since the previous
   * sample of the same instance, so the caller never sees a driver's restart as a jump.
   */
  sample(instances: readonly SampledInstance[]): Promise<UsageSample[]>;
  /** What the machines the driver places instances on have, for the admin and for admission. */
  capacity(): Promise<HostCapacity>;
  /**
   * Which of an instance's limits apply and how, in the customer's words (the Configuration card), and
   * whether it shares its server with other instances (a database made before servers per instance).
   */
  limits(instance: SampledInstance, resources: Resources): AppliedLimits;
}

export interface AppliedLimits {
  /** The instance is a tenant of a server other instances share: its memory and CPU are not its own. */
  sharedServer: boolean;
  limits: AppliedLimit[];
}

export interface SampledInstance {
  id: string;
  type: InstanceType;
}

/** Responses by HTTP status class (1xx, e.g. a websocket upgrade, counts as 2xx) and body bytes sent. */
export interface RequestCounts {
  status2xx: number;
  status3xx: number;
  status4xx: number;
  status5xx: number;
  bytesSent: number;
}

export interface UsageSample {
  instanceId: string;
  at: Date;
  /** Seconds the counters below cover (0 for the first sample of an instance after a start). */
  intervalSeconds: number;
  /** CPU time used during the interval, seconds; null where not measured per instance (shared servers). */
  cpuSeconds: number | null;
  /** Memory in use now (without the page cache the kernel drops at once), bytes. */
  memoryBytes: number | null;
  /** The most it held during the interval, bytes. */
  memoryPeakBytes: number | null;
  memoryLimitBytes: number | null;
  /** Processes the kernel killed for the instance's memory during the interval. */
  oomKills: number;
  diskUsedBytes: number | null;
  diskLimitBytes: number | null;
  /** What its disk can still take now (StorageUse.roomBytes); absent or null where not measured. */
  diskRoomBytes?: number | null;
  /** Sites and applications: what the front door answered during the interval; null for databases. */
  requests: RequestCounts | null;
}

export interface HostCapacity {
  memoryBytes: number;
  cpus: number;
  /** The file system instances' disks live on. */
  diskBytes: number;
  diskFreeBytes: number;
  /** How limits are enforced, for the admin (e.g. "cgroup v1", "Docker"). */
  enforcement: string;
  /** What tenants' disks promise and take against the disk's policy (disk-policy.ts), where it is judged. */
  storage?: StorageReport;
  /**
   * Where instances run, one by one, when that is more than this host (the swarm driver's nodes, per
   * region); the totals above are those of the places taking instances.
   */
  places?: CapacityPlace[];
}

/** A machine instances run on (a swarm node) and what is reserved there. */
export interface CapacityPlace {
  region: string;
  node: string;
  /**
   * active · pause · drain (the operator's); preparing (Berth loads its images: it takes no instance
   * yet); down · unknown · disconnected (the scheduler's view).
   */
  state: string;
  memoryBytes: number;
  cpus: number;
  reservedMemoryBytes: number;
  reservedCpus: number;
  /** The file system its instances' disks are on (0 when it could not be asked). */
  diskBytes: number;
  diskFreeBytes: number;
  /** What instances' disks promise and take there against the disk policy; absent: not asked. */
  storage?: StorageReport;
  /** Berth instances with a task there now. */
  instances: number;
}

/** One limit as the Configuration card shows it. */
export interface AppliedLimit {
  label: string;
  value: string;
  /** True when the instance has it to itself and the system enforces it; false for what it shares. */
  enforced: boolean;
}
