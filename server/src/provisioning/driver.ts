import { REGION_UNAVAILABLE, REGIONS } from '@berth/openapi/rules';
import { ConflictError } from '../lib/errors.ts';
import type { InstanceEngine, SpecOf } from './engine.ts';
import {
  type Capabilities,
  INSTANCE_TYPES,
  type InstanceType,
  type NotAvailable,
  TYPE_FEATURES,
  type Unavailable,
} from './instance-types.ts';
import type { UsageCapability } from './usage.ts';

/**
 * The provisioning driver: what the rest of the server calls to run what customers deploy. It holds one
 * engine per instance type (engine.ts); the `local` driver (./local/) runs them on this host. The
 * instances service and its jobs never know which driver runs: they ask `engine(row.type)`.
 */
export interface ProvisioningDriver {
  /** The engine of an instance type (one that cannot run here answers an unavailable capability). */
  engine<T extends InstanceType>(type: T): InstanceEngine<SpecOf[T]>;
  /** Every type's capability: what each engine can do right now, and why not. */
  capabilities(): Promise<Capabilities>;
  /** Every region customers can pick, and whether this driver places instances there. */
  regions(): Promise<RegionAvailability[]>;
  /**
   * Hears databases (of MySQL instances and WordPress sites) reach their size limit, which refuses
   * their writes, and get below it again. Called from the driver's own watch, outside any job. Answers
   * a function that stops the listening.
   */
  onStorageLimit(listener: (event: StorageLimitEvent) => void): () => void;
  /** Live instance states (the swarm driver has them; the local driver's jobs already know). */
  readonly live?: LiveStatusCapability;
  /**
   * Per region, the servers that run its instances as the scheduler reports them, for the admin (the
   * swarm driver's nodes). Absent: the driver runs everything on this host.
   */
  nodes?(): Promise<RegionNodes[]>;
  /**
   * Drains a server (Admin → Server): nothing new is placed on it, and it answers the instances whose
   * data is on it, each to be moved off with `live.move`. Present with `nodes`.
   */
  drainNode?(nodeId: string): Promise<string[]>;
  /** Puts a drained server back in service: new instances may be placed on it again. */
  activateNode?(nodeId: string): Promise<void>;
  /** What instances use and what the host has (usage.ts); absent: this driver measures nothing. */
  readonly usage?: UsageCapability;
  /** Brings up what the driver supervises (or connects to). */
  start(): Promise<void>;
  /** Closes connections and shuts supervised servers down gracefully. */
  stop(): Promise<void>;
  health(): Promise<DriverHealth>;
}

/** A server of a region as its scheduler reports it (a swarm node). */
export interface NodeReport {
  id: string;
  hostname: string;
  role: 'manager' | 'worker';
  /** ready · down · unknown · disconnected (the manager's view). */
  state: string;
  /** active · pause · drain (the operator's). */
  availability: string;
  address: string;
  labels: Record<string, string>;
  memoryBytes: number;
  memoryReservedBytes: number;
  cpus: number;
  cpusReserved: number;
  /** Berth instances with a task on it now. */
  instances: number;
}

/** A region's servers; `error` when its scheduler could not be asked. */
export interface RegionNodes {
  region: string;
  error?: string;
  nodes: NodeReport[];
}

/** Each type's engine. */
export type Engines = { [T in InstanceType]: InstanceEngine<SpecOf[T]> };

/** A region customers can pick (REGIONS of @berth/openapi's rules) and whether this driver serves it. */
export interface RegionAvailability {
  id: string;
  available: boolean;
  /** Why not, in the customer's words, when unavailable. */
  reason?: string;
}

/** The one region a single-host driver serves; every other answers why not. */
export function oneRegion(region: string): RegionAvailability[] {
  return REGIONS.map((r) =>
    r.id === region
      ? { id: r.id, available: true }
      : { id: r.id, available: false, reason: REGION_UNAVAILABLE.otherHost(region) },
  );
}

/** The capability of each engine, asked all at once. */
export async function capabilitiesOf(engines: Engines): Promise<Capabilities> {
  const found = await Promise.all(
    INSTANCE_TYPES.map(async (type) => [type, await engines[type].capability()] as const),
  );
  return Object.fromEntries(found) as Capabilities;
}

/**
 * The engine of a type that cannot run here: its capability says why, and every operation refuses with
 * ProvisioningUnavailableError (answered as a 409). It has no optional capabilities.
 */
export function unavailableEngine<T extends InstanceType>(
  type: T,
  why: () => NotAvailable,
): InstanceEngine<SpecOf[T]> {
  const refuse = async (): Promise<never> => {
    throw new ProvisioningUnavailableError(type, why());
  };
  return {
    type,
    // The whole type is unavailable (capability says why): no feature of it is offered either.
    features: Object.fromEntries(TYPE_FEATURES[type].map((feature) => [feature, why().reason])),
    capability: async () => why(),
    deploy: refuse,
    delete: refuse,
    suspend: refuse,
    resume: refuse,
  };
}

export type ServerState = 'stopped' | 'starting' | 'running' | 'restarting' | 'stopping' | 'failed';

export interface ServerHealth {
  /** `external`: a server given by an admin URL; `local`: one the driver runs; `none`: not available. */
  kind: 'local' | 'external' | 'none';
  state: ServerState;
  /** Whether `SELECT 1` answered just now. */
  ok: boolean;
  pid?: number;
  port?: number;
  restarts?: number;
  message?: string;
}

export interface DriverHealth {
  ok: boolean;
  servers: Record<string, ServerHealth>;
}

/**
 * An instance's live state as the driver sees it, for drivers whose instances can change state by
 * themselves (swarm: a node goes down, a task fails or is killed by its memory limit). The jobs write
 * `running`/`error` after their own operations; this carries what happens between them.
 */
export interface InstanceStatus {
  id: string;
  type: InstanceType;
  /**
   * running · starting (being (re)started, or not answering through its front door yet) · stopped
   * (suspended) · node-down (its server stopped answering; it comes back with it) · unreachable (the
   * scheduler lost its server, but the instance still answers its customers) · lost (its server stayed
   * down past the grace period: it will not come back there; `relocate` it and restore its backup) ·
   * error (it cannot run: `message` says why).
   */
  state: 'running' | 'starting' | 'stopped' | 'node-down' | 'unreachable' | 'lost' | 'error';
  /** In the customer's words: node-down "Waiting for its server to come back", error its reason. */
  message?: string;
}

export interface LiveStatusCapability {
  /** The instance's state now; undefined when the driver has no such instance. */
  status(id: string): Promise<InstanceStatus | undefined>;
  /**
   * Calls `listener` with an instance's state whenever it changes, and with an `error`-free notice
   * (`message` set, state unchanged) when a process of it was killed by its memory limit. Answers the
   * unsubscribe. The driver watches only while someone listens.
   */
  watch(listener: (status: InstanceStatus) => void): () => void;
  /**
   * Lets go of a lost instance's server: its services are removed (its data on the lost server is gone
   * with it; the server is fenced, and whatever of it is still there is removed when it comes back), its
   * secrets kept, so that the next deploy of the same spec places it on a server that is up, empty, with
   * the same credentials (a database's host, and its port where it is taken there, change). Idempotent.
   */
  relocate(id: string): Promise<void>;
  /**
   * Moves an instance whose server is up to another server of its region with all its data: it stops,
   * its data is copied, it starts there (a database's host changes; its port and passwords stay). A move
   * that fails leaves it running where it was. Refuses (ConflictError) when no other server can take it.
   */
  move(id: string): Promise<void>;
}

/** A database reached its size limit (its writes are refused) or is below it again. */
export interface StorageLimitEvent {
  /** The instance: a MySQL instance, or the WordPress site whose database it is. */
  instanceId: string;
  full: boolean;
  usedBytes: number;
  /** The size it was sold. */
  limitBytes: number;
  /**
   * Where the server's disk holds it for now, when that is below its size (disk-policy.ts, the hold):
   * its writes stop there though it has not reached its size.
   */
  heldBytes?: number;
}

/**
 * The host has no room for another tenant disk without eating into the platform's reserve
 * (local/disk-reserve.ts). The operator finds the figures in the log.
 */
export class StorageExhaustedError extends ConflictError {
  constructor() {
    super('This server has no storage left for a new instance. Please try again later or contact support.');
  }
}

/**
 * The instance type cannot be provisioned here (answered as a 409): the message and `details.reason` are
 * the customer's words; the operator's `detail` is kept for the log only.
 */
export class ProvisioningUnavailableError extends ConflictError {
  readonly detail: string | undefined;

  constructor(type: InstanceType, why: Unavailable) {
    super(why.reason, { type, reason: why.reason });
    this.detail = why.detail;
  }
}
