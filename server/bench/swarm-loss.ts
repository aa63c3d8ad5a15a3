// Part of `npm run bench:swarm`: what a lost server and a drained server cost the customer on a real local
// swarm, per instance type. Each round puts a MySQL, a PostgreSQL, a WordPress and (where this host has
// n8n's runtime) an n8n instance on the us-east-1 worker, a placeholder holding the manager's CPUs while
// they deploy. Loss: each is backed up, the worker is killed (its dockerd and every process in its
// namespace), and each instance goes through what the platform's recovery job does once the driver says
// it is lost (relocate, deploy the same spec, restore the backup) — the time to detect it (from the kill
// to `lost`, which waits for the grace period, 60 s by default) and from the kill to serving again.
// The worker is started again, fenced and swept. Drain: the same four are deployed on the worker again,
// the worker is drained, and each is moved as the platform's move job does (move, deploy the same spec).
import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseSpec, N8nSpec, SiteSpec } from '../src/provisioning/engine.ts';
import { imageRefs } from '../src/provisioning/swarm/image-builder.ts';
import { killLocalNode, type LocalSwarm, restartLocalNode } from '../src/provisioning/swarm/local-swarm.ts';
import { dockerFor, listNodes } from '../src/provisioning/swarm/swarm-api.ts';
import type { SwarmDriver } from '../src/provisioning/swarm/swarm-driver.ts';
import { testArchives } from '../test/provisioning/test-archives.ts';

type BenchType = 'mysql' | 'postgresql' | 'wordpress' | 'n8n';
type Specs = { mysql: DatabaseSpec; postgresql: DatabaseSpec; wordpress: SiteSpec; n8n?: N8nSpec };

const REGION = 'us-east-1';
const LOST_LABEL = 'berth.lost';

function specsOf(withN8n: boolean): Specs {
  const small = { memoryMb: 256, cpus: 0.25 };
  return {
    mysql: { id: randomUUID(), region: REGION, resources: small, password: 'Bench-mysql-2026' },
    postgresql: { id: randomUUID(), region: REGION, resources: small, password: 'Bench-pg-2026' },
    wordpress: {
      id: randomUUID(),
      region: REGION,
      resources: { memoryMb: 512, cpus: 0.25 },
      title: 'Bench loss',
      adminUser: 'bench',
      adminEmail: 'bench@example.com',
      adminPassword: 'Bench#wordpress2026',
      phpVersion: '8.2',
      databasePassword: 'Bench-site-db-2026',
    },
    ...(withN8n && {
      n8n: {
        id: randomUUID(),
        region: REGION,
        resources: { memoryMb: 1024, cpus: 0.5 },
        ownerEmail: 'bench@example.com',
        ownerPassword: 'Bench-n8n-2026',
        encryptionKey: randomBytes(24).toString('hex'),
      },
    }),
  };
}

export async function benchNodeLoss(
  swarm: LocalSwarm,
  driver: SwarmDriver,
  rounds: number,
  line: (label: string, samples: number[], target: number) => void,
): Promise<void> {
  const manager = dockerFor(swarm.regions[REGION] ?? '');
  const worker = swarm.nodes.find((node) => node.name === 'use1-w');
  if (!worker) throw new Error('the local swarm has no us-east-1 worker');
  const withN8n = (await driver.capabilities()).n8n.available;
  const types: BenchType[] = ['mysql', 'postgresql', 'wordpress', ...(withN8n ? (['n8n'] as const) : [])];
  const archives = await testArchives();
  const detected: number[] = [];
  const recovered = new Map<BenchType, number[]>(types.map((type) => [type, []]));
  const moved = new Map<BenchType, number[]>(types.map((type) => [type, []]));
  const nodeId = async (name: string) =>
    (await listNodes(manager)).find((node) => node.Description.Hostname === name)?.ID ?? '';
  const workerId = await nodeId(`${swarm.name}-use1-w`);

  /** Deploys each spec onto the worker: a placeholder holds the manager's CPUs meanwhile. */
  async function deployOnWorker(specs: Specs): Promise<void> {
    const placeholder = await manager.createService({
      Name: `bench-placeholder-${randomBytes(3).toString('hex')}`,
      TaskTemplate: {
        ContainerSpec: { Image: imageRefs().agent, Command: ['sleep', 'infinity'] },
        Resources: { Reservations: { NanoCPUs: 1.9e9 } },
        Placement: { Constraints: ['node.role==manager'] },
      },
      Mode: { Replicated: { Replicas: 1 } },
    });
    try {
      for (;;) {
        const tasks = await manager.listTasks({ filters: { service: [placeholder.id] } });
        if (tasks.some((task: { Status?: { State?: string } }) => task.Status?.State === 'running')) break;
        await sleep(250);
      }
      await driver.engine('mysql').deploy(specs.mysql);
      await driver.engine('postgresql').deploy(specs.postgresql);
      await driver.engine('wordpress').deploy(specs.wordpress);
      if (specs.n8n) await driver.engine('n8n').deploy(specs.n8n);
    } finally {
      await manager.getService(placeholder.id).remove();
    }
  }

  const each = (specs: Specs) =>
    types.flatMap((type) => {
      const spec = specs[type];
      return spec ? [{ type, spec }] : [];
    });
  /** What the platform's jobs call for one instance: deploy it (again) with its own spec. */
  const deploy = (type: BenchType, spec: DatabaseSpec | SiteSpec | N8nSpec) =>
    driver.engine(type).deploy(spec);
  const remove = async (specs: Specs) => {
    for (const { type, spec } of each(specs)) await driver.engine(type).delete(spec.id);
  };

  for (let round = 0; round < rounds; round += 1) {
    // Loss.
    const specs = specsOf(withN8n);
    await deployOnWorker(specs);
    const backups = new Map<string, Awaited<ReturnType<typeof archives.dump>>>();
    for (const { type, spec } of each(specs)) {
      backups.set(spec.id, await archives.dump(driver.engine(type).backups, spec, `${spec.id}-${round}`));
    }
    const lostAt = new Map<string, number>();
    const unwatch = driver.live.watch((status) => {
      if (status.state === 'lost' && !lostAt.has(status.id)) lostAt.set(status.id, performance.now());
    });
    const killedAt = performance.now();
    await killLocalNode(worker);
    await Promise.all(
      each(specs).map(async ({ type, spec }) => {
        while (!lostAt.has(spec.id)) await sleep(200);
        detected.push((lostAt.get(spec.id) ?? 0) - killedAt);
        await driver.live.relocate(spec.id);
        await deploy(type, spec);
        const backup = backups.get(spec.id);
        if (backup) await archives.restore(driver.engine(type).backups, spec, backup);
        recovered.get(type)?.push(performance.now() - killedAt);
      }),
    );
    unwatch();
    await remove(specs);
    await restartLocalNode(worker);
    // Fenced, then swept by the driver's node watch before it takes work again.
    for (;;) {
      const node = (await listNodes(manager)).find((n) => n.ID === workerId);
      if (node?.Status.State === 'ready' && !node.Spec.Labels?.[LOST_LABEL]) break;
      await sleep(1000);
    }

    // Drain.
    const again = specsOf(withN8n);
    await deployOnWorker(again);
    const toMove = new Set(await driver.drainNode(workerId));
    for (const { type, spec } of each(again)) {
      if (!toMove.has(spec.id)) throw new Error(`${type} ${spec.id} was not on the drained worker`);
      const t0 = performance.now();
      await driver.live.move(spec.id);
      await deploy(type, spec);
      moved.get(type)?.push(performance.now() - t0);
    }
    await driver.activateNode(workerId);
    await remove(again);
  }

  console.log(
    `\nA lost server and a drained one (${rounds} round${rounds === 1 ? '' : 's'}; ${types.join(', ')} on one worker)`,
  );
  line('detected lost (kill to lost)', detected, 5 * 60_000);
  for (const type of types) line(`lost ${type}: kill to serving`, recovered.get(type) ?? [], 5 * 60_000);
  for (const type of types) line(`drained ${type}: moved`, moved.get(type) ?? [], 5 * 60_000);
  if (!withN8n) console.log('  n8n: left out, this host has no n8n runtime (npm run install-n8n)');
  await rm(archives.dir, { recursive: true, force: true });
}
