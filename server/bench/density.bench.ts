// `npm run bench:density -- <N>` (default 100): how many idle WordPress sites this host holds, and what
// each costs. Deploys N sites (256 MB, 0.25 vCPU each) one after another through the local driver, and
// after every STEP sites prints:
//   deploy     p50 / p95 of that step's deploys, and the p50 of each part (tenant, user and disk; php
//              and install; route: the front door reloaded; the first 200)
//   memory     MemAvailable's drop since the start, per site, once the step's sites are idle
//   reload     one reload of the front door's whole configuration (Caddy), and its size
//   page       PAGE_SITES random sites' first page rendered by PHP (a logged-in cookie: never cached),
//              then a cached one each (anonymous, served from the site's disk by Caddy): p50 / max
//   sampler    the usage sampler's CPU and time for one sample of every site
//   idle CPU   the driver's own CPU, as a share of one core, while the step's sites settle (the disk
//              hold's rounds above all: DISK_OVERCOMMIT here is far above what the disk has)
//   disk       promised to the sites' disks and written, on the disks' file system (disk-policy.ts)
//   headroom   how many more such sites the disk policy lets this host take (Admin → Server's figure)
// DISK_OVERCOMMIT is set so that N sites may be promised their disks here (printed); the sites are
// deleted at the end. Run as root (the local driver's sandboxes, disks and control groups).
// DENSITY_HOLD=off runs without the disk hold, for a host whose free space cannot deal N sites their
// room to grow (the hold then refuses new sites, as it should): it measures the rest at N, and the
// header says so.
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from '../src/provisioning/deploy-latency.ts';
import { caddyAdmin, caddyPaths } from '../src/provisioning/local/front-door/caddy.ts';
import { hostControlGroups } from '../src/provisioning/local/host/control-groups.ts';
import { diskReserve } from '../src/provisioning/local/host/disk-reserve.ts';
import { missingHostPackages } from '../src/provisioning/local/host/host-packages.ts';
import { disksDir } from '../src/provisioning/local/host/tenant-disks.ts';
import { createLocalDriver } from '../src/provisioning/local/local-driver.ts';
import { cleanUpLocalDriver } from '../test/provisioning/test-driver-cleanup.ts';
import { sitePage } from './site-page.ts';

const N = Number(process.argv[2] ?? process.env.DENSITY_SITES ?? 100);
const STEP = Number(process.env.DENSITY_STEP ?? 50);
/** How long the sites of a step are left alone before memory is read (deploys' leftovers gone). */
const SETTLE_MS = 20_000;
const MIB = 1024 * 1024;
/** What a site promises by default: its 1 GiB disk and its 512 MiB database's disk (868 MiB image). */
const SITE_PROMISE_MB = 1024 + 868;
const RESERVE_MB = Number(process.env.DISK_RESERVE_MB) || 2048;
/** How many sites' pages are read a step (distinct, at random). */
const PAGE_SITES = Number(process.env.DENSITY_PAGE_SITES ?? 5);
const HOLD = process.env.DENSITY_HOLD !== 'off';

const missing = missingHostPackages();
if (missing.length > 0 || process.getuid?.() !== 0) {
  console.log(
    `density: skipped, the local driver needs root and ${missing.join(' ') || 'its packages'} (run the tests once as root)`,
  );
  process.exit(0);
}

const memAvailable = () =>
  Number(/MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) * 1024;

const root = await mkdtemp('/tmp/berth-bench-density-');
// Promises for N sites against what this disk really has (free + nothing written yet − the reserve).
const here = await diskReserve(disksDir(root), { reserveMb: RESERVE_MB, overcommit: 1 }, () => {}).figures();
const overcommit =
  Number(process.env.DISK_OVERCOMMIT) ||
  Math.min(
    20,
    Math.max(
      1,
      Math.ceil(((N + 2) * SITE_PROMISE_MB * MIB) / Math.max(1, here.freeBytes - RESERVE_MB * MIB)),
    ),
  );
const logs: string[] = [];
/** Where each deploy of the current step spent its time (the driver's "site … deployed:" lines), per part. */
const stepParts = new Map<string, number[]>();
function noteDeploy(line: string): void {
  const parts = /^site \S+ deployed: \d+ ms \((.*)\)$/.exec(line)?.[1];
  for (const [, part, ms] of parts?.matchAll(/(?:^|, )(.+?) (\d+) ms/g) ?? []) {
    if (part && ms) stepParts.set(part, [...(stepParts.get(part) ?? []), Number(ms)]);
  }
}
const cgroupParent = `berth-density-${process.pid}`;
const driver = createLocalDriver({
  dataRoot: root,
  cgroupParent,
  sites: {},
  diskReserveMb: RESERVE_MB,
  diskOvercommit: overcommit,
  diskHold: HOLD,
  log: (line) => {
    logs.push(line);
    noteDeploy(line);
    if (line.startsWith('disk hold')) console.log(`         ${line}`);
  },
});

/** One reload of the front door's whole configuration (changed, so that Caddy does not skip it). */
async function reloadMs(): Promise<{ ms: number; kib: number }> {
  const socket = caddyPaths(root).adminSocket;
  const current = await caddyAdmin(socket, 'GET', '/config/');
  const config = JSON.parse(current.body) as { apps: { http: { grace_period?: string } } };
  config.apps.http.grace_period = config.apps.http.grace_period === '5s' ? '6s' : '5s';
  const t0 = performance.now();
  const loaded = await caddyAdmin(socket, 'POST', '/load', config);
  if (loaded.status !== 200) throw new Error(`Caddy answered ${loaded.status}: ${loaded.body}`);
  return { ms: performance.now() - t0, kib: current.body.length / 1024 };
}

const fmt = (ms: number) =>
  ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

const sites: { id: string; url: URL }[] = [];
// Ctrl-C (or a kill) stops after the deploy under way; the sites are deleted and the host left clean.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    stopping = true;
    console.log(`density: ${signal}, stopping after the deploy under way`);
  });
try {
  await driver.start();
  await sleep(5000);
  const before = memAvailable();
  console.log(
    `\nDensity: ${N} WordPress sites (256 MB, 0.25 vCPU), ${STEP} per step; DISK_OVERCOMMIT ${overcommit}, reserve ${RESERVE_MB} MiB, ${HOLD ? 'with the hold' : 'WITHOUT the hold (DENSITY_HOLD=off)'}; pages of ${PAGE_SITES} sites a step; MemAvailable ${gib(before)} at the start`,
  );
  console.log(
    '  sites  deploy p50 / p95   memory/site   reload (config)      uncached p50 / max   cached p50 / max   sampler CPU / time   idle CPU  disk promised / written  headroom',
  );
  while (sites.length < N && !stopping) {
    const times: number[] = [];
    stepParts.clear();
    const stepEnd = Math.min(N, sites.length + STEP);
    while (sites.length < stepEnd && !stopping) {
      const id = crypto.randomUUID();
      const t0 = performance.now();
      const deployed = await driver.engine('wordpress').deploy({
        id,
        title: `Density ${sites.length + 1}`,
        adminUser: 'bench',
        adminEmail: 'bench@example.com',
        adminPassword: 'Bench#wordpress2026',
        phpVersion: '8.2',
        resources: { memoryMb: 256, cpus: 0.25 },
      });
      times.push(performance.now() - t0);
      sites.push({ id, url: new URL(deployed.urls?.url ?? '') });
    }
    // The driver's own work while nobody deploys (the disk hold's rounds, the MariaDB guard's sweeps).
    const idle0 = process.cpuUsage();
    await sleep(SETTLE_MS);
    const idle = process.cpuUsage(idle0);
    const idleShare = (idle.user + idle.system) / 1000 / SETTLE_MS;
    const perSite = (before - memAvailable()) / sites.length;
    const reload = await reloadMs();
    // Distinct sites at random (a partial Fisher–Yates shuffle).
    const picked = [...sites];
    for (let i = 0; i < Math.min(PAGE_SITES, picked.length); i += 1) {
      const j = i + Math.floor(Math.random() * (picked.length - i));
      [picked[i], picked[j]] = [picked[j] as (typeof picked)[number], picked[i] as (typeof picked)[number]];
    }
    picked.length = Math.min(PAGE_SITES, picked.length);
    const uncached: number[] = [];
    const cached: number[] = [];
    const statuses = new Set<number>();
    for (const pick of picked) {
      const page = await sitePage(pick.url, 'wordpress_logged_in_density=1');
      await sitePage(pick.url);
      const cachedPage = await sitePage(pick.url);
      uncached.push(page.ms);
      cached.push(cachedPage.ms);
      statuses.add(page.status).add(cachedPage.status);
    }
    const usage = driver.usage;
    const cpu0 = process.cpuUsage();
    const s0 = performance.now();
    await usage?.sample(sites.map(({ id }) => ({ id, type: 'wordpress' as const })));
    const samplerMs = performance.now() - s0;
    const cpu = process.cpuUsage(cpu0);
    const storage = (await usage?.capacity())?.storage;
    times.sort((a, b) => a - b);
    const spread = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `${fmt(percentile(sorted, 50))} / ${fmt(sorted.at(-1) ?? 0)}`;
    };
    const notOk = [...statuses].filter((status) => status !== 200);
    console.log(
      `  ${String(sites.length).padStart(5)}  ${fmt(percentile(times, 50)).padStart(7)} / ${fmt(percentile(times, 95)).padEnd(7)}  ${`${(perSite / MIB).toFixed(1)} MB`.padStart(10)}   ${`${fmt(reload.ms)} (${reload.kib.toFixed(0)} KiB)`.padEnd(19)}  ${spread(uncached).padStart(18)}   ${spread(cached).padStart(16)}  ${`${fmt((cpu.user + cpu.system) / 1000)} / ${fmt(samplerMs)}`.padEnd(19)}  ${`${(idleShare * 100).toFixed(1)} %`.padStart(8)}  ${(storage ? `${gib(storage.promisedBytes)} / ${gib(storage.tenantUsedBytes)}` : '—').padEnd(23)}  ${storage?.headroomSites ?? '—'}${notOk.length > 0 ? `  (pages answered ${notOk.join(', ')})` : ''}`,
    );
    const parts = [...stepParts].map(
      ([part, ms]) =>
        `${part} ${fmt(
          percentile(
            [...ms].sort((a, b) => a - b),
            50,
          ),
        )}`,
    );
    console.log(`         deploy p50 by part: ${parts.join(' · ')}`);
  }
} catch (error) {
  console.log(`density: stopped at ${sites.length} sites: ${(error as Error).message}`);
  console.log(logs.slice(-10).join('\n'));
  process.exitCode = 1;
} finally {
  for (const site of sites)
    await driver
      .engine('wordpress')
      .delete(site.id)
      .catch(() => {});
  await cleanUpLocalDriver(driver, root, hostControlGroups(cgroupParent));
}
