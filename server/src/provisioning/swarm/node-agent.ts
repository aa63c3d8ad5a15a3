import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { DEFAULT_RUNTIMES_DIR, N8N_VERSION, n8nRuntimeNeeds } from '../apps/n8n/n8n-runtime.ts';
import { type DiskFigures, refusalOf } from '../disk-policy.ts';
import { StorageExhaustedError } from '../driver.ts';
import type { StorageUse } from '../engine.ts';
import { copyImage } from './image-builder.ts';
import { type ImageName, RECIPES } from './image-recipes.ts';
import { LOST_LABEL } from './instance-status.ts';
import { execIn } from './node-exec.ts';
import { choosePlacement, type Need, type Region } from './region.ts';
import { LABEL, N8N_RUNTIME_LABEL } from './services.ts';
import { type SwarmNode, unlessMissing } from './swarm-api.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * Berth's agent on every node (image-files/agent/berth-agent): a container of Berth's own, never of a
 * tenant's, with the rights it needs and no more (mounting, the node's firewall; no `--privileged`), in
 * the node's network and process namespaces. It does what the Engine API cannot:
 *
 * - **Size-limited volumes.** Each stateful instance's volume is an ext4 image of the size it was sold,
 *   loop-mounted on the node under its volume root; the Docker volume binds that file system's `data/`
 *   folder, so a tenant that fills it fills its own disk only (`df` inside shows its size). A node that
 *   restarts mounts them again from the agent's start (RestartPolicy always); until then a task that
 *   needs one fails to start (its `data/` is missing) rather than writing to the node's own disk.
 * - **Tenants' egress.** n8n's and databases' traffic to private, link-local and reserved ranges, to the
 *   region's nodes and to the node itself is dropped (TENANT_EGRESS_ALLOW opens ranges to n8n), as the
 *   local driver does for its tenants.
 *   Databases are on Docker's default bridge, where the agent drops every new connection they open: to
 *   each other, the node, the world (only answers to their customers pass). A bridge of their own would be
 *   a swarm-scoped bridge network, and Docker 20.10 cannot bring those back after its daemon crashed
 *   (every task on the node is rejected with "network … exists"), which would keep a node's databases
 *   down after it came back.
 */

const AGENT = 'berth-agent';
/** Where a node keeps its volumes' disks unless its `berth.volume-root` label says otherwise. */
const DEFAULT_VOLUME_ROOT = '/var/lib/berth/volumes';
const IMAGE_NAMES = Object.keys(RECIPES) as ImageName[];
const VOLUME_ROOT_LABEL = 'berth.volume-root';

const volumeRoot = (node: SwarmNode) => node.Spec.Labels?.[VOLUME_ROOT_LABEL] ?? DEFAULT_VOLUME_ROOT;

/** Addresses of every node of the region (swarm and public), which tenants' containers must not reach. */
async function nodeAddresses(region: Region): Promise<string[]> {
  const nodes = await region.nodes();
  const addresses = nodes.flatMap((node) => [node.Status.Addr, region.publicAddress(node)]);
  return [...new Set(addresses.filter((a) => /^\d{1,3}(\.\d{1,3}){3}$/.test(a)))].sort();
}

interface AgentConfig {
  image: string;
  env: string[];
}

async function agentConfig(ctx: SwarmContext, region: Region, node: SwarmNode): Promise<AgentConfig> {
  return {
    image: ctx.image('agent'),
    env: [
      `BERTH_VOLUME_ROOT=${volumeRoot(node)}`,
      `BERTH_EGRESS_ALLOW=${(ctx.options.egressAllow ?? []).join(',')}`,
      `BERTH_NODE_ADDRESSES=${(await nodeAddresses(region)).join(',')}`,
    ],
  };
}

const configHash = (config: AgentConfig) =>
  createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);

/**
 * Waits until the agent says it is ready (its firewall applied, its disks mounted), and refuses a node
 * whose dockerd does not give containers no-new-privileges: swarm services cannot ask for it one by one
 * (Engine API 1.41), so the daemon must set it for all, and the agent (which asks for nothing) shows
 * whether it does.
 */
async function waitForAgent(engine: Docker, since: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const logs = (await engine.getContainer(AGENT).logs({
      stdout: true,
      stderr: true,
      since: Math.floor(since / 1000) - 1,
    })) as unknown as Buffer;
    const ready = /berth-agent ready no-new-privileges=(\d)/.exec(logs.toString());
    if (ready?.[1] === '1') return;
    if (ready) {
      throw new Error(
        'its dockerd runs without --no-new-privileges ("no-new-privileges": true in /etc/docker/daemon.json)',
      );
    }
    const state = (await engine.getContainer(AGENT).inspect()) as { State: { Running: boolean } };
    if (!state.State.Running || Date.now() > deadline) {
      throw new Error(`the agent did not start: ${logs.toString().slice(-1000)}`);
    }
    await sleep(200);
  }
}

/** Starts the node's agent, or replaces it when its image or configuration changed. */
async function ensureAgent(ctx: SwarmContext, region: Region, node: SwarmNode): Promise<void> {
  const engine = region.nodeEngine(node);
  const config = await agentConfig(ctx, region, node);
  const hash = configHash(config);
  const existing = (await unlessMissing(() => engine.getContainer(AGENT).inspect())) as
    | { Config: { Labels?: Record<string, string> }; State: { Running: boolean } }
    | undefined;
  if (existing?.Config.Labels?.['berth.config'] === hash && existing.State.Running) return;
  if (existing) await engine.getContainer(AGENT).remove({ force: true });
  const started = Date.now();
  const container = await engine.createContainer({
    name: AGENT,
    Image: config.image,
    Cmd: ['/usr/local/bin/berth-agent', 'run'],
    Env: config.env,
    Labels: { [LABEL.role]: 'agent', 'berth.config': hash },
    HostConfig: {
      NetworkMode: 'host',
      PidMode: 'host',
      // Mounting loop devices (SYS_ADMIN, and the loop devices), entering the node's mount namespace
      // (SYS_PTRACE to open it, SYS_CHROOT to join it) and its firewall (NET_ADMIN); nothing else.
      CapDrop: ['ALL'],
      CapAdd: [
        'SYS_ADMIN',
        'SYS_PTRACE',
        'SYS_CHROOT',
        'NET_ADMIN',
        'NET_RAW',
        'DAC_OVERRIDE',
        'CHOWN',
        'FOWNER',
      ],
      DeviceCgroupRules: ['b 7:* rwm', 'c 10:237 rwm'],
      // No no-new-privileges of its own asked for: what it reports is the daemon's (waitForAgent).
      SecurityOpt: ['apparmor=unconfined'],
      ReadonlyRootfs: true,
      Tmpfs: { '/run': 'rw,nosuid,nodev,noexec,size=1m' },
      RestartPolicy: { Name: 'always' },
      Memory: 64 * 1024 * 1024,
      PidsLimit: 64,
    },
  });
  await container.start();
  try {
    await waitForAgent(engine, started);
  } catch (error) {
    // Not kept: the node is checked again the next time it is asked for.
    await container.remove({ force: true }).catch(() => {});
    throw error;
  }
}

/**
 * Makes a node ready for Berth's instances: its agent (volumes, firewall). Idempotent and cheap when
 * nothing changed; called for every ready node at start and before a node is chosen for an instance.
 */
async function prepareNode(ctx: SwarmContext, region: Region, node: SwarmNode): Promise<void> {
  // One preparation of a node at a time (two deploys choosing a new node load its images once).
  await ctx.lock(`node:${node.ID}`, async () => {
    await ensureImages(ctx, region, node);
    await ensureAgent(ctx, region, node);
    await labelN8nRuntime(ctx, region, node);
    // A lost node stays drained until this is done: nothing is placed there before.
    await sweepNode(ctx, region, node);
  });
}

/** Nodes already said to lack n8n's runtime (said once per node and process). */
const saidNoRuntime = new Set<string>();

/**
 * n8n's runtime on a node: n8n instances bind it read-only from their node's own disk (2.3 GB: it is no
 * image; the README's "Scaling out"). A node that has it whole gets the label n8n placement asks for,
 * as soon as it is prepared (a node that joins needs no hand-set label); one that lacks it gets none,
 * and the log says what to run on it. The files are looked for through the agent, in the node's own
 * mount namespace; the paths are the platform's (RUNTIMES_DIR), never a tenant's.
 */
async function labelN8nRuntime(ctx: SwarmContext, region: Region, node: SwarmNode): Promise<void> {
  if (node.Spec.Labels?.[N8N_RUNTIME_LABEL] === N8N_VERSION) return;
  const runtimesDir = ctx.options.runtimesDir ?? DEFAULT_RUNTIMES_DIR;
  const { target } = await agentOn(region, node.ID);
  const whole = await execIn(target, [
    'sh',
    '-c',
    'pid=$(cat /run/berth-host-pid); for f in "$@"; do nsenter -t "$pid" -m -- test -f "$f" || exit 1; done',
    'probe',
    ...n8nRuntimeNeeds(runtimesDir),
  ]).then(
    () => true,
    () => false,
  );
  if (!whole) {
    if (!saidNoRuntime.has(node.ID))
      ctx.log(
        `node ${node.Description.Hostname} of ${region.id} has no n8n ${N8N_VERSION} runtime in ${runtimesDir}: n8n instances are not placed there until \`npm run install-n8n\` ran on it`,
      );
    saidNoRuntime.add(node.ID);
    return;
  }
  const current = (await region.nodeById(node.ID)) ?? node;
  await region.manager.getNode(node.ID).update({
    version: current.Version.Index,
    ...current.Spec,
    Labels: { ...(current.Spec.Labels ?? {}), [N8N_RUNTIME_LABEL]: N8N_VERSION },
  });
  ctx.log(
    `node ${node.Description.Hostname} of ${region.id}: n8n ${N8N_VERSION} found, it takes n8n instances`,
  );
}

/** Containers of an instance that are no task of its: they end by themselves (node-exec.ts helpers). */
const HELPER_ROLES = ['backup-helper', 'sftp-session', 'move-helper'];

/** How old a volume must be before a sweep may take it for an orphan (a deploy makes it before its service). */
const ORPHAN_AFTER_MS = 10 * 60_000;

/**
 * What of Berth's a node holds for instances that are no longer there: instances deleted while the node
 * was down, or relocated while it was lost. Their containers, volumes and disks go (volumes only once
 * they are old enough not to belong to a deploy under way); then a lost node that came back takes
 * instances again. An instance that stayed pinned to a lost node (it had no backup to come back from)
 * runs there again with its data.
 */
async function sweepNode(ctx: SwarmContext, region: Region, node: SwarmNode): Promise<void> {
  const engine = region.nodeEngine(node);
  const services = (await region.manager.listServices({ filters: { label: [LABEL.instance] } })) as {
    Spec?: { Labels?: Record<string, string> };
  }[];
  const home = new Map<string, string>();
  for (const service of services) {
    const labels = service.Spec?.Labels ?? {};
    const id = labels[LABEL.instance];
    if (id && labels[LABEL.node]) home.set(id, labels[LABEL.node] ?? '');
  }
  // An instance being placed here now (a deploy, a move) is not stale before its service says so.
  const stale = (id: string | undefined) =>
    id !== undefined && home.get(id) !== node.ID && ctx.promises.get(id)?.nodeId !== node.ID;
  for (const container of await engine.listContainers({ all: true, filters: { label: [LABEL.instance] } })) {
    // Helpers and swarm's own tasks of services that exist are not this sweep's.
    if (HELPER_ROLES.includes(container.Labels?.[LABEL.role] ?? '')) continue;
    if (stale(container.Labels?.[LABEL.instance]))
      await engine
        .getContainer(container.Id)
        .remove({ force: true })
        .catch(() => {});
  }
  const { Volumes } = await engine.listVolumes({ filters: { label: [LABEL.instance] } });
  let removed = 0;
  for (const volume of Volumes ?? []) {
    // On a lost node nothing is under way: whatever is stale goes at once.
    const created = Date.parse((volume as { CreatedAt?: string }).CreatedAt ?? '');
    const settled = node.Spec.Labels?.[LOST_LABEL] !== undefined || Date.now() - created > ORPHAN_AFTER_MS;
    if (!stale(volume.Labels?.[LABEL.instance]) || !settled) continue;
    await engine
      .getVolume(volume.Name)
      .remove({ force: true })
      .catch(() => {});
    await removeVolumeDisk(region, node.ID, volume.Name).catch(() => {});
    removed += 1;
  }
  if (removed > 0)
    ctx.log(`node ${node.Description.Hostname} of ${region.id}: ${removed} orphaned volumes removed`);
  if (!node.Spec.Labels?.[LOST_LABEL]) return;
  const current = (await region.nodeById(node.ID)) ?? node;
  const { [LOST_LABEL]: _lost, ...labels } = current.Spec.Labels ?? {};
  await region.manager.getNode(node.ID).update({
    version: current.Version.Index,
    ...current.Spec,
    Availability: 'active',
    Labels: labels,
  });
  ctx.log(
    `node ${node.Description.Hostname} of ${region.id} came back: what was left of relocated instances is gone`,
  );
}

/**
 * Berth's images on the node, before anything is placed there: a node that joined a region has none, and
 * a task given a missing image fails ("No such image") without a registry to pull from. Each comes from
 * this host's image cache or another node of the region (image-builder.ts `copyImage`); meanwhile the
 * admin sees the node "preparing".
 */
async function ensureImages(ctx: SwarmContext, region: Region, node: SwarmNode): Promise<void> {
  const engine = region.nodeEngine(node);
  const present = new Set((await engine.listImages()).flatMap((image) => image.RepoTags ?? []));
  const missing = [...new Set(IMAGE_NAMES.map((name) => ctx.image(name)))].filter((ref) => !present.has(ref));
  if (missing.length === 0) return;
  ctx.preparing.add(node.ID);
  const started = Date.now();
  try {
    const others = (await region.nodes())
      .filter((other) => other.ID !== node.ID && other.Status.State === 'ready')
      .map((other) => region.nodeEngine(other));
    for (const ref of missing) await copyImage(engine, ref, others);
    ctx.log(
      `node ${node.Description.Hostname} of ${region.id}: ${missing.length} images loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    ctx.preparing.delete(node.ID);
  }
}

async function agentOn(region: Region, nodeId: string) {
  const node = await region.nodeById(nodeId);
  if (!node) throw new Error(`The node ${nodeId} is gone`);
  const engine = region.nodeEngine(node);
  return { node, target: { engine, container: engine.getContainer(AGENT), nodeId } };
}

/** The volume options that bind a disk the agent made (volumeMount in services.ts uses them). */
export function sizedVolumeOptions(node: SwarmNode, name: string): Record<string, string> {
  return { type: 'none', o: 'bind', device: `${volumeRoot(node)}/${name}/fs/data` };
}

/** Makes (or mounts again) the disk of a volume on its node; its size is fixed when first made. */
export async function createVolumeDisk(region: Region, nodeId: string, name: string, sizeMb: number) {
  const { target } = await agentOn(region, nodeId);
  await execIn(target, ['berth-agent', 'volume-create', name, String(Math.round(sizeMb))]);
}

/** Deletes a volume's disk (after the volume itself is removed); absent: nothing happens. */
export async function removeVolumeDisk(region: Region, nodeId: string, name: string) {
  const { target } = await agentOn(region, nodeId);
  await execIn(target, ['berth-agent', 'volume-remove', name]);
}

/** Used and total bytes of volumes' disks on a node (those that exist), and what each can still take. */
export async function volumeUsage(
  region: Region,
  nodeId: string,
  names: string[],
): Promise<Map<string, StorageUse>> {
  const { target } = await agentOn(region, nodeId);
  const out = await execIn(target, ['berth-agent', 'volume-usage', ...names]);
  const usage = new Map<string, StorageUse>();
  for (const line of out.split('\n')) {
    const [name, used, size, free] = line.trim().split(/\s+/);
    if (name && used && size)
      usage.set(name, {
        usedBytes: Number(used),
        limitBytes: Number(size),
        ...(free && { roomBytes: Number(free) }),
      });
  }
  return usage;
}

/** How long a placement's promise holds without its service's task showing (a deploy takes seconds). */
const PROMISE_MS = 5 * 60_000;

/**
 * The node a new stateful instance goes to (region.ts chooses it), made ready for it first; a node that
 * cannot be made ready is passed over (the log says why) for the next best. Deploys at once in a region
 * are placed one after another, and each placement is counted on its node (promised) until the instance's
 * task shows there: two deploys never take the same room.
 */
export async function placeInstance(
  ctx: SwarmContext,
  region: Region,
  need: Need,
  instanceId: string,
): Promise<SwarmNode> {
  return ctx.lock(`placement:${region.id}`, async () => {
    const promised = new Map<string, { memoryBytes: number; nanoCpus: number; diskBytes: number }>();
    const placedTasks = new Set((await region.loads()).flatMap((load) => [...load.instances]));
    for (const [id, promise] of ctx.promises) {
      if (placedTasks.has(id) || Date.now() - promise.at > PROMISE_MS) ctx.promises.delete(id);
      else if (promise.region === region.id) {
        const sum = promised.get(promise.nodeId) ?? { memoryBytes: 0, nanoCpus: 0, diskBytes: 0 };
        promised.set(promise.nodeId, {
          memoryBytes: sum.memoryBytes + promise.memoryBytes,
          nanoCpus: sum.nanoCpus + promise.nanoCpus,
          diskBytes: sum.diskBytes + promise.diskBytes,
        });
      }
    }
    const passedOver = new Set<string>();
    let fullDisks = 0;
    for (;;) {
      let node: SwarmNode;
      try {
        node = await choosePlacement(region, need, passedOver, promised);
      } catch (error) {
        // Every server that could take it had no disk to promise: the customer reads that.
        if (fullDisks > 0 && fullDisks === passedOver.size) throw new StorageExhaustedError();
        throw error;
      }
      try {
        await prepareNode(ctx, region, node);
      } catch (error) {
        ctx.log(
          `node ${node.Description.Hostname} of ${region.id} is not ready for instances: ${(error as Error).message}`,
        );
        passedOver.add(node.ID);
        continue;
      }
      let refusal: string | undefined;
      try {
        refusal = await diskRefusal(ctx, region, node, need, promised.get(node.ID)?.diskBytes ?? 0);
      } catch (error) {
        // Its agent cannot say what its disk holds: passed over like a node that is not ready.
        ctx.log(
          `node ${node.Description.Hostname} of ${region.id} cannot tell its disk: ${(error as Error).message}`,
        );
        passedOver.add(node.ID);
        continue;
      }
      if (refusal) {
        ctx.log(`node ${node.Description.Hostname} of ${region.id} takes no new disk: ${refusal}`);
        passedOver.add(node.ID);
        fullDisks += 1;
        continue;
      }
      ctx.promises.set(instanceId, {
        region: region.id,
        nodeId: node.ID,
        memoryBytes: need.memoryBytes,
        nanoCpus: need.nanoCpus,
        diskBytes: need.diskBytes ?? 0,
        at: Date.now(),
      });
      return node;
    }
  });
}

/**
 * Why `node` may not promise the instance's disks (disk-policy.ts, the operator's DISK_OVERCOMMIT and
 * DISK_RESERVE_MB), counting those of deploys placed there whose volumes may not exist yet; undefined
 * when it may.
 */
async function diskRefusal(
  ctx: SwarmContext,
  region: Region,
  node: SwarmNode,
  need: Need,
  pendingBytes: number,
): Promise<string | undefined> {
  if (!need.diskBytes) return undefined;
  const figures = await nodeDisk(region, node.ID);
  return refusalOf(
    { ...figures, promisedBytes: figures.promisedBytes + pendingBytes },
    ctx.diskPolicy,
    need.diskBytes,
    ctx.holdAllowances.get(node.ID) ?? null,
  );
}

/** Readies every node of the region that is up (at the driver's start); a failure is logged. */
export async function prepareRegion(ctx: SwarmContext, region: Region): Promise<void> {
  for (const node of await region.nodes()) {
    if (node.Status.State !== 'ready') continue;
    await prepareNode(ctx, region, node).catch((error: Error) =>
      ctx.log(
        `node ${node.Description.Hostname} of ${region.id} is not ready for instances: ${error.message}`,
      ),
    );
  }
}

/** The file system a node keeps instances' disks on, and what their images promise and take there (bytes). */
export async function nodeDisk(region: Region, nodeId: string): Promise<DiskFigures> {
  const { target } = await agentOn(region, nodeId);
  const [used = 0, free = 0, promised = 0, taken = 0, disks = 0] = (
    await execIn(target, ['berth-agent', 'disk'])
  )
    .trim()
    .split(/\s+/)
    .map(Number);
  return {
    sizeBytes: used + free,
    usedBytes: used,
    freeBytes: free,
    promisedBytes: promised,
    tenantUsedBytes: taken,
    disks,
  };
}

/** What the hold reads of a node (berth-agent hold-figures): its free space and each volume's disk. */
export interface NodeHoldFigures {
  freeBytes: number;
  volumes: Map<string, { sizeBytes: number; takenBytes: number; freeBytes?: number; holdBytes: number }>;
}

export async function nodeHoldFigures(region: Region, nodeId: string): Promise<NodeHoldFigures> {
  const { target } = await agentOn(region, nodeId);
  const figures: NodeHoldFigures = { freeBytes: 0, volumes: new Map() };
  const volume = (name: string) => {
    const found = figures.volumes.get(name) ?? { sizeBytes: 0, takenBytes: 0, holdBytes: 0 };
    figures.volumes.set(name, found);
    return found;
  };
  for (const line of (await execIn(target, ['berth-agent', 'hold-figures'])).split('\n')) {
    const [kind, name = '', a = '0', b = '0'] = line.trim().split(/\s+/);
    if (kind === 'root') figures.freeBytes = Number(name);
    else if (kind === 'image') Object.assign(volume(name), { sizeBytes: Number(a), takenBytes: Number(b) });
    else if (kind === 'free') volume(name).freeBytes = Number(a);
    else if (kind === 'hold') volume(name).holdBytes = Number(a);
  }
  return figures;
}

/** Sets volumes' holds on a node (berth-agent hold-set; 0 lets go). */
export async function setNodeHolds(
  region: Region,
  nodeId: string,
  holds: Map<string, number>,
): Promise<void> {
  if (holds.size === 0) return;
  const { target } = await agentOn(region, nodeId);
  await execIn(target, [
    'berth-agent',
    'hold-set',
    ...[...holds].flatMap(([name, bytes]) => [name, String(Math.floor(bytes))]),
  ]);
}
