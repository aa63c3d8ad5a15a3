// `npm run bench:swarm`: deploy-to-running latency on a real local swarm (server/src/provisioning/swarm),
// beside the local driver's for the same database types, on this machine. A swarm deploy ends when the
// instance serves: a database's tenant logs in over its published port; a WordPress site answers 200
// through its region's front door. Instances are deployed one after another, each into us-east-1 or
// eu-west-1 in turn, and deleted after. Targets (issue 24): swarm MySQL and PostgreSQL p95 <= 10 s,
// WordPress p95 <= 15 s. Then what a lost server and a drained server cost per type (swarm-loss.ts;
// SWARM_BENCH_LOSS rounds, 2 by default; target: serving again within 5 minutes). Needs root (network
// namespaces, dockerd) and Berth's images (built once per host: npm run swarm:local -- images).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { formatLatency, measureDeployLatency, percentile } from '../src/provisioning/deploy-latency.ts';
import { missingHostPackages } from '../src/provisioning/local/host/host-packages.ts';
import { createLocalDriver } from '../src/provisioning/local/local-driver.ts';
import { startBerthSwarm } from '../src/provisioning/swarm/local-berth-swarm.ts';
import { stopLocalSwarm } from '../src/provisioning/swarm/local-swarm.ts';
import { createSwarmDriver } from '../src/provisioning/swarm/swarm-driver.ts';
import { benchNodeLoss } from './swarm-loss.ts';

const COUNTS = {
  mysql: Number(process.env.SWARM_BENCH_DB ?? 10),
  wordpress: Number(process.env.SWARM_BENCH_WP ?? 5),
};
const REGIONS = ['us-east-1', 'eu-west-1'];
/** Rounds of a lost worker and a drained one (swarm-loss.ts), about 6 minutes each. */
const LOSS_ROUNDS = Number(process.env.SWARM_BENCH_LOSS ?? 2);
const TARGETS_MS = { mysql: 10_000, postgresql: 10_000, wordpress: 15_000 };

if (process.getuid?.() !== 0) {
  console.log('swarm bench: skipped, it runs as root (network namespaces and dockerd)');
  process.exit(0);
}

const root = await mkdtemp('/tmp/berth-bench-swarm-');
const localRoot = await mkdtemp('/tmp/berth-bench-swarm-local-');
const started = performance.now();
try {
  const swarm = await startBerthSwarm({ name: `bb${(process.pid % 1000).toString(36)}`, subnet: 90, root });
  const driver = createSwarmDriver({
    regions: Object.fromEntries(Object.entries(swarm.regions).map(([id, endpoint]) => [id, { endpoint }])),
    baseDomain: 'bench.test',
    backupsDir: `${root}/backups`,
  });
  await driver.start();
  console.log(
    `\nDeploy-to-running on a local swarm (2 regions, 3 nodes; ready in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );

  const line = (label: string, samples: number[], target: number) => {
    samples.sort((a, b) => a - b);
    const p95 = percentile(samples, 95);
    console.log(
      `  ${label} x${samples.length}: p50 ${(percentile(samples, 50) / 1000).toFixed(1)} s, p95 ${(p95 / 1000).toFixed(1)} s, max ${((samples.at(-1) ?? 0) / 1000).toFixed(1)} s (target p95 <= ${target / 1000} s: ${p95 <= target ? 'met' : 'MISSED'})`,
    );
  };

  for (const type of ['mysql', 'postgresql'] as const) {
    const samples: number[] = [];
    for (let i = 0; i < COUNTS.mysql; i += 1) {
      const id = randomUUID();
      const t0 = performance.now();
      await driver
        .engine(type)
        .deploy({ id, region: REGIONS[i % 2], resources: { memoryMb: 512, cpus: 0.5 } });
      samples.push(performance.now() - t0);
      await driver.engine(type).delete(id);
    }
    line(`swarm   ${type}`, samples, TARGETS_MS[type]);
  }

  const samples: number[] = [];
  for (let i = 0; i < COUNTS.wordpress; i += 1) {
    const id = randomUUID();
    const t0 = performance.now();
    await driver.engine('wordpress').deploy({
      id,
      region: REGIONS[i % 2],
      resources: { memoryMb: 512, cpus: 0.5 },
      title: `Bench ${i}`,
      adminUser: 'bench',
      adminEmail: 'bench@example.com',
      adminPassword: 'Bench#wordpress2026',
      phpVersion: '8.2',
    });
    samples.push(performance.now() - t0);
    await driver.engine('wordpress').delete(id);
  }
  line('swarm   wordpress', samples, TARGETS_MS.wordpress);

  await benchNodeLoss(swarm, driver, LOSS_ROUNDS, line);
  await driver.stop();

  // The local driver on the same machine: tenants of one shared server each (no server per instance).
  if (missingHostPackages().length === 0) {
    const local = createLocalDriver({ dataRoot: localRoot });
    await local.start();
    for (const type of ['mysql', 'postgresql'] as const) {
      console.log(`  local   ${formatLatency(await measureDeployLatency(local, type, COUNTS.mysql))}`);
    }
    await local.stop();
    console.log('  (local WordPress: see the deploy bench above, `npm run bench`)');
  } else {
    console.log(`  local: skipped (${missingHostPackages().join(' ')} missing)`);
  }
} finally {
  await stopLocalSwarm(root);
  await rm(root, { recursive: true, force: true });
  await rm(localRoot, { recursive: true, force: true });
}
