// `npm run bench` (profile.bench.ts imports this file), or alone: `node server/bench/database-servers.bench.ts`.
// Database instances on the one box (issue 33): deploy-to-ready of MySQL and PostgreSQL with a server of
// their own per instance (now) against tenants of the shared servers (before), p50 / p95 over COUNT
// deploys one after another, each until the tenant's first login (over verified TLS for own servers);
// then what an idle instance's server costs in memory: its control group's memory (what the kernel
// charges it, page cache it can drop left out) and the PSS of its processes, IDLE_COUNT of each type
// deployed at 512MB and left alone for IDLE_WAIT_MS. Target: own servers p95 <= 3 s.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { formatLatency, measureDeployLatency } from '../src/provisioning/deploy-latency.ts';
import { hostControlGroups } from '../src/provisioning/local/host/control-groups.ts';
import { missingHostPackages } from '../src/provisioning/local/host/host-packages.ts';
import { createLocalDriver } from '../src/provisioning/local/local-driver.ts';
import { removeSiteUsersUnder } from '../test/provisioning/site-sandbox.ts';
import { removeTestGroups } from '../test/provisioning/test-driver-cleanup.ts';

const COUNT = 10;
const IDLE_COUNT = 3;
const IDLE_WAIT_MS = 20_000;
const TYPES = ['mysql', 'postgresql'] as const;

/** PSS of every process in a control group (v1 memory hierarchy or v2), KiB. */
function pssOfGroup(procsFile: string): number {
  let kib = 0;
  for (const pid of readFileSync(procsFile, 'utf8').split('\n').filter(Boolean)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      kib += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kib;
}

if (missingHostPackages().length > 0 || process.getuid?.() !== 0) {
  console.log('\ndatabase servers: skipped (needs root and the MariaDB and PostgreSQL packages)');
} else {
  console.log(`\nDatabase instances on the one box, ${COUNT} deploys per engine`);
  for (const mode of ['own', 'shared'] as const) {
    const root = await mkdtemp('/tmp/berth-bench-dbs-');
    const parent = `berth-bench-dbs-${process.pid}`;
    const driver = createLocalDriver({ dataRoot: root, databaseServers: mode, cgroupParent: parent });
    try {
      await driver.start();
      for (const type of TYPES) {
        const summary = await measureDeployLatency(driver, type, COUNT, { gapMs: 500 });
        const label = mode === 'own' ? 'own server (now)   ' : 'shared server (before)';
        console.log(
          `  ${label} ${formatLatency(summary)}${mode === 'own' ? ` (target p95 <= 3000 ms: ${summary.p95Ms <= 3000 ? 'met' : 'MISSED'})` : ''}`,
        );
      }
      if (mode === 'own') {
        const groups = hostControlGroups(parent);
        const ids: Record<string, string[]> = { mysql: [], postgresql: [] };
        for (const type of TYPES) {
          for (let i = 0; i < IDLE_COUNT; i += 1) {
            const id = randomUUID();
            ids[type]?.push(id);
            await driver.engine(type).deploy({ id, resources: { memoryMb: 512, cpus: 0.5 } });
          }
        }
        await new Promise((resolve) => setTimeout(resolve, IDLE_WAIT_MS));
        for (const type of TYPES) {
          const charged: number[] = [];
          const pss: number[] = [];
          for (const id of ids[type] ?? []) {
            charged.push(((await groups.stats(id))?.memoryBytes ?? 0) / 1024 / 1024);
            const procs =
              groups.joins(id).find((file) => file.includes('/memory/') || !file.includes('/cpu')) ?? '';
            pss.push(pssOfGroup(procs) / 1024);
          }
          const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
          console.log(
            `  idle ${type} instance (512MB, own server): ${mean(charged).toFixed(1)} MiB charged to its group, ${mean(pss).toFixed(1)} MiB PSS of its processes (mean of ${IDLE_COUNT})`,
          );
        }
        for (const type of TYPES) for (const id of ids[type] ?? []) await driver.engine(type).delete(id);
      }
    } finally {
      await driver.stop().catch(() => {});
      await removeTestGroups(hostControlGroups(parent));
      await removeSiteUsersUnder(root);
      await rm(root, { recursive: true, force: true });
    }
  }
}
