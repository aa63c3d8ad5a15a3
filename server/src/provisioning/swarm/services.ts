import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { regionLabel } from '@berth/openapi/rules';
import type Docker from 'dockerode';
import { ValidationError } from '../../lib/errors.ts';
import type { Resources } from '../engine.ts';
import { CapacityError, type Region } from './region.ts';
import { currentTask, listTasks, type SwarmTask, statusOf, unlessMissing } from './swarm-api.ts';

/**
 * What every engine does with Docker: names derived from the instance id, labels, secrets (immutable, so
 * named after their content's hash), volumes and networks, services created or updated in place, and the
 * wait for a task to run (or the reason it cannot).
 */

export const LABEL = {
  instance: 'berth.instance',
  owner: 'berth.owner',
  type: 'berth.type',
  /** What the object is to its instance: `app`, `db`, `password`, … */
  role: 'berth.role',
  /** The node the instance's volumes are on (its id). */
  node: 'berth.node',
  slug: 'berth.slug',
  domain: 'berth.domain',
  /** The published host port of a database instance. */
  port: 'berth.port',
} as const;

/** The node label n8n placement asks for: the node has n8n's runtime of that version (node-agent.ts). */
export const N8N_RUNTIME_LABEL = 'berth.n8n-runtime';

export interface InstanceNames {
  id: string;
  /** The id without '-'. */
  key: string;
  /** First label of the temporary URL (12 characters, like the local driver's). */
  slug: string;
  /** The instance's service (for WordPress: its web server). */
  service: string;
  /** WordPress: its own MariaDB service. */
  dbService: string;
  /** Its private overlay network (sites and n8n). */
  network: string;
  volume(purpose: string): string;
}

export function instanceNames(id: string): InstanceNames {
  if (!/^[a-z0-9-]{1,50}$/.test(id)) throw new ValidationError(`Invalid instance id: ${JSON.stringify(id)}`);
  const key = id.replaceAll('-', '');
  return {
    id,
    key,
    slug: key.slice(0, 12),
    service: `berth-${key}`,
    dbService: `berth-${key}-db`,
    network: `berth-${key}`,
    volume: (purpose) => `berth-${key}-${purpose}`,
  };
}

const instanceFilter = (id: string) => ({ label: [`${LABEL.instance}=${id}`] });

/** The memory and CPU an instance gets, as Docker counts them (bytes, nano-CPUs). */
export interface Sized {
  memoryBytes: number;
  nanoCpus: number;
  memoryMb: number;
}

export function sizeOf(resources: Resources | undefined, fallback: Resources): Sized {
  const r = resources ?? fallback;
  if (!Number.isFinite(r.memoryMb) || r.memoryMb < 64 || r.memoryMb > 1024 * 1024) {
    throw new ValidationError('The memory of an instance must be 64 MB to 1 TB');
  }
  if (!Number.isFinite(r.cpus) || r.cpus < 0.01 || r.cpus > 256) {
    throw new ValidationError('The CPU of an instance must be 0.01 to 256 vCPUs');
  }
  return {
    memoryMb: Math.round(r.memoryMb),
    memoryBytes: Math.round(r.memoryMb) * 1024 * 1024,
    nanoCpus: Math.round(r.cpus * 1e9),
  };
}

/**
 * Limits and reservations alike (the scheduler never places more than a node has), and a ceiling on the
 * processes (and threads) its container may run: a fork bomb stops there, not at the node's pid space.
 */
export function resourcesSpec(size: Sized, pids: number) {
  const r = { NanoCPUs: size.nanoCpus, MemoryBytes: size.memoryBytes };
  return { Limits: { ...r, Pids: pids }, Reservations: r };
}

/**
 * Processes each kind of container may run: MariaDB's threads (one per connection, 100 at most, and
 * its own), PostgreSQL's processes (50 connections and its workers), Apache's workers with PHP, n8n's
 * threads and task runner. Far above what they use, far below a node's pid space.
 */
export const PIDS = { mariadb: 512, postgres: 256, wordpress: 256, n8n: 512 } as const;

/**
 * A secret holding `value`, made once: its name carries a hash of the content (secrets cannot change),
 * so the same password again is the same secret and a new one a new secret. Answers its id and name.
 */
export async function ensureSecret(
  manager: Docker,
  names: InstanceNames,
  purpose: string,
  value: string,
  labels: Record<string, string>,
): Promise<{ SecretID: string; SecretName: string }> {
  // Docker allows 64 characters: berth-<32>-<purpose up to 14>-<8>.
  const hash = createHash('sha256').update(`${names.key}\0${value}`).digest('hex').slice(0, 8);
  const name = `berth-${names.key}-${purpose}-${hash}`;
  const existing = (await manager.listSecrets({ filters: { name: [name] } })).find(
    (secret) => secret.Spec?.Name === name,
  );
  if (existing) return { SecretID: existing.ID, SecretName: name };
  try {
    const created = (await manager.createSecret({
      Name: name,
      Labels: { ...labels, [LABEL.instance]: names.id, [LABEL.role]: purpose },
      Data: Buffer.from(value).toString('base64'),
    })) as { id: string };
    return { SecretID: created.id, SecretName: name };
  } catch (error) {
    // Made meanwhile by a retry of the same job.
    if (statusOf(error) !== 409) throw error;
    const again = (await manager.listSecrets({ filters: { name: [name] } })).find(
      (secret) => secret.Spec?.Name === name,
    );
    if (!again) throw error;
    return { SecretID: again.ID, SecretName: name };
  }
}

/** Removes the instance's secrets but those named in `keep` (a password change drops the old one). */
export async function removeSecrets(manager: Docker, id: string, keep: string[] = []): Promise<void> {
  for (const secret of await manager.listSecrets({ filters: instanceFilter(id) })) {
    if (keep.includes(secret.Spec?.Name ?? '')) continue;
    try {
      await manager.getSecret(secret.ID).remove();
    } catch (error) {
      // 400/409: still in use by a service being updated; the next removal takes it.
      if (![400, 404, 409, 500].includes(statusOf(error) ?? 0)) throw error;
    }
  }
}

export interface ServiceInfo {
  ID: string;
  Version: { Index: number };
  Spec: Docker.ServiceSpec & { Labels?: Record<string, string> };
}

export async function findService(manager: Docker, name: string): Promise<ServiceInfo | undefined> {
  return unlessMissing(async () => (await manager.getService(name).inspect()) as ServiceInfo);
}

/**
 * Creates the service, or updates it in place to `spec`. Answers the time (ms) after which its tasks
 * count: 0 when it was made or nothing its tasks run changed, else the update's own time (an update of
 * the task template replaces the task; waitForRunning must not take the old one for the new).
 */
export async function applyService(
  manager: Docker,
  spec: Docker.ServiceSpec & { Name: string },
): Promise<number> {
  const current = await findService(manager, spec.Name);
  if (!current) {
    await manager.createService(spec);
    return 0;
  }
  await manager.getService(current.ID).update({ version: current.Version.Index, ...spec });
  const after = (await manager.getService(current.ID).inspect()) as ServiceInfo & {
    UpdatedAt?: string;
    PreviousSpec?: Docker.ServiceSpec;
  };
  const same =
    JSON.stringify(after.Spec.TaskTemplate) === JSON.stringify(after.PreviousSpec?.TaskTemplate) &&
    JSON.stringify(after.Spec.Mode) === JSON.stringify(after.PreviousSpec?.Mode);
  return same ? 0 : Date.parse(after.UpdatedAt ?? '') || 0;
}

/** Scales a service (suspend: 0, resume: 1) and waits for it to get there. */
export async function scale(manager: Docker, name: string, replicas: number): Promise<void> {
  const current = await findService(manager, name);
  if (!current) return;
  if (current.Spec.Mode?.Replicated?.Replicas !== replicas) {
    await manager.getService(current.ID).update({
      version: current.Version.Index,
      ...current.Spec,
      Mode: { Replicated: { Replicas: replicas } },
    });
  }
  if (replicas === 0) await waitForNoTasks(manager, name);
}

async function waitForNoTasks(manager: Docker, service: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tasks = await unlessMissing(() => listTasks(manager, { service: [service] }));
    const live = (tasks ?? []).filter((task) =>
      ['assigned', 'accepted', 'preparing', 'ready', 'starting', 'running'].includes(task.Status.State),
    );
    if (live.length === 0) return;
    if (Date.now() > deadline) throw new Error(`The tasks of ${service} did not stop in ${timeoutMs} ms`);
    await sleep(200);
  }
}

export async function removeService(manager: Docker, name: string): Promise<void> {
  const current = await findService(manager, name);
  if (!current) return;
  await unlessMissing(() => manager.getService(current.ID).remove());
  await waitForNoTasks(manager, name);
}

const PENDING_LIMIT_MS = 15_000;

/**
 * Resolves with the running task once the service runs (with a health check: once healthy, since swarm
 * keeps a task `starting` until then). Throws with the reason when its task fails twice, is rejected, or
 * stays pending because no node can take it (instead of waiting forever).
 */
export async function waitForRunning(
  region: Region,
  service: string,
  options: { after?: number; timeoutMs?: number } = {},
): Promise<SwarmTask> {
  const timeoutMs = options.timeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  const failures = new Set<string>();
  let pendingSince: number | undefined;
  for (;;) {
    // Tasks of an earlier spec do not count: after an update, only a task made for it.
    const tasks = (await listTasks(region.manager, { service: [service] })).filter(
      (t) => Date.parse(t.CreatedAt) >= (options.after ?? 0),
    );
    const task = currentTask(tasks);
    if (task?.Status.State === 'running') return task;
    for (const failed of tasks.filter((t) => ['failed', 'rejected'].includes(t.Status.State))) {
      failures.add(`${failed.ID}: ${failed.Status.Err ?? failed.Status.Message ?? failed.Status.State}`);
    }
    if (failures.size >= 2) {
      throw new Error(`${service} failed to start: ${[...failures].slice(-1)[0]?.replace(/^\w+: /, '')}`);
    }
    if (task?.Status.State === 'pending' && /no suitable node/.test(task.Status.Err ?? '')) {
      pendingSince ??= Date.now();
      if (Date.now() - pendingSince > PENDING_LIMIT_MS) {
        throw new CapacityError(
          `No server of ${regionLabel(region.id)} can take this instance now (${task.Status.Err})`,
        );
      }
    } else {
      pendingSince = undefined;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${service} did not start in ${timeoutMs / 1000} s (its task is ${task?.Status.State ?? 'missing'}${task?.Status.Err ? `: ${task.Status.Err}` : ''})`,
      );
    }
    await sleep(150);
  }
}

/** An overlay network of the instance's own (attachable: the region's front door joins it). */
export async function ensureNetwork(
  manager: Docker,
  names: InstanceNames,
  options: { internal: boolean; labels: Record<string, string>; encrypted: boolean },
): Promise<void> {
  const found = await unlessMissing(() => manager.getNetwork(names.network).inspect());
  if (found) return;
  try {
    await manager.createNetwork({
      Name: names.network,
      Driver: 'overlay',
      Attachable: true,
      Internal: options.internal,
      CheckDuplicate: true,
      // IPsec between nodes (SWARM_ENCRYPTED_OVERLAYS), where the nodes' kernels have ESP.
      Options: options.encrypted ? { encrypted: '' } : {},
      Labels: { ...options.labels, [LABEL.instance]: names.id },
    });
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
  }
}

/**
 * Removes a network and waits until it is gone: for a moment after its last task went it still has
 * endpoints (refused), and a removal the manager accepted can take a moment to show.
 */
export async function removeNetwork(manager: Docker, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await unlessMissing(() => manager.getNetwork(name).remove());
      if (!(await unlessMissing(() => manager.getNetwork(name).inspect()))) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`The network ${name} was not removed in 30 s`);
    await sleep(250);
  }
}

/** A host port for a database instance that no service of the region publishes yet (`preferred` if it is free). */
export async function freeHostPort(
  manager: Docker,
  range: { from: number; to: number },
  preferred?: number,
): Promise<number> {
  const services = (await manager.listServices()) as ServiceInfo[];
  const used = new Set(
    services.flatMap((service) => (service.Spec.EndpointSpec?.Ports ?? []).map((port) => port.PublishedPort)),
  );
  if (preferred && !used.has(preferred) && preferred >= range.from && preferred <= range.to) return preferred;
  const span = range.to - range.from + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i += 1) {
    const port = range.from + ((start + i) % span);
    if (!used.has(port)) return port;
  }
  throw new CapacityError(`All ${span} database ports of this region are in use`);
}

/** Seconds as Docker durations (nanoseconds). */
export const seconds = (s: number) => Math.round(s * 1e9);

/** A private tmpfs (a read-only container's writable scratch space). */
export const tmpfsMount = (target: string, mb: number) => ({
  Type: 'tmpfs' as const,
  Source: '',
  Target: target,
  TmpfsOptions: { SizeBytes: mb * 1024 * 1024, Mode: 0o1777 },
});
