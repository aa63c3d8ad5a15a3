// `npm run bench`, after the API numbers (profile.bench.ts imports this file; alone:
// `npx node server/bench/usage.bench.ts`, BENCH_USAGE_SITES=n for another count): the CPU time the local driver's usage sampler spends
// per minute with 50 running sites, as a share of one core (target: at most 2 %).
//
// What is real: the sampler itself (local/usage/local-usage.ts), 50 control groups of this host (v1 or
// v2, as the driver picks), each with a running process inside and its limits written; the disks'
// statfs (one folder per site: the same system call a site's mounted disk gets); Caddy's access-log
// lines read through the real reader, 10 responses per site per 15 s. What is not: the sites'
// php-fpm and WordPress (50 full sites do not fit this machine beside the tests; they add nothing to
// what the sampler reads, which is per group and per disk). The samples' INSERT into PostgreSQL (one
// statement of 50 rows every 15 s) is not counted.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { storageReport } from '../src/provisioning/disk-policy.ts';
import type { Engines } from '../src/provisioning/driver.ts';
import { ACCESS_LOGGER_PREFIX } from '../src/provisioning/front-door/caddy-config.ts';
import { accessLogReader } from '../src/provisioning/local/front-door/access-log.ts';
import { hostControlGroups, launchInGroup } from '../src/provisioning/local/host/control-groups.ts';
import { diskReserve } from '../src/provisioning/local/host/disk-reserve.ts';
import { systemUser } from '../src/provisioning/local/host/host.ts';
import { diskUsage } from '../src/provisioning/local/host/tenant-disks.ts';
import { localUsage } from '../src/provisioning/local/usage/local-usage.ts';
import { createUnconfiguredDriver } from '../src/provisioning/unconfigured-driver.ts';
import { removeTestGroups } from '../test/provisioning/test-driver-cleanup.ts';

const SITES = Number(process.env.BENCH_USAGE_SITES ?? 50);
/** Samples measured (every 15 s in production; back to back here, each after 15 s worth of log lines). */
const SAMPLES = 40;
const REQUESTS_PER_SITE = 10;

const groups = hostControlGroups(`berth-bench-${randomBytes(4).toString('hex')}`);
const root = await mkdtemp('/tmp/berth-bench-usage-');
const ids = Array.from({ length: SITES }, () => randomUUID());
const children: ReturnType<typeof spawn>[] = [];

try {
  if (groups.mode === 'none') {
    console.log(`Usage sampler: skipped (${groups.summary})`);
  } else {
    const nobody = systemUser('nobody');
    if (!nobody) throw new Error('no user nobody');
    for (const id of ids) {
      await groups.ensure(id, { memoryMb: 512, cpus: 0.5 });
      await mkdir(path.join(root, 'disks', id), { recursive: true });
      const line = launchInGroup(nobody, groups.joins(id), '/bin/sleep', ['3600']);
      children.push(spawn(line.command, line.args, { uid: line.uid, gid: line.gid, stdio: 'ignore' }));
    }
    await sleep(500);

    const log = path.join(root, 'access.log');
    await writeFile(log, '');
    const unconfigured = createUnconfiguredDriver();
    const engines = Object.fromEntries(
      (['wordpress', 'n8n', 'mysql', 'postgresql', 'mongodb'] as const).map((type) => [
        type,
        unconfigured.engine(type),
      ]),
    ) as Engines;
    engines.wordpress = {
      ...engines.wordpress,
      storage: {
        async usage(id) {
          const disk = await diskUsage(path.join(root, 'disks', id));
          return { usedBytes: disk.usedBytes, limitBytes: 1024 * 1024 * 1024 };
        },
      },
    };
    const reader = accessLogReader(log);
    const usage = localUsage({
      groups,
      engines,
      accessLog: reader,
      dataRoot: root,
      storage: async () => {
        const reserve = diskReserve(path.join(root, 'disks'), { reserveMb: 0, overcommit: 1 }, () => {});
        return storageReport(await reserve.figures(), reserve.policy, { promisedBytes: 1024 ** 3, disks: 1 });
      },
      ownsDatabaseServer: () => false,
    });
    const instances = ids.map((id) => ({ id, type: 'wordpress' as const }));
    const traffic = ids
      .flatMap((id) =>
        Array.from({ length: REQUESTS_PER_SITE }, (_, i) =>
          JSON.stringify({ logger: `${ACCESS_LOGGER_PREFIX}${id}`, status: i === 0 ? 404 : 200, size: 5120 }),
        ),
      )
      .join('\n');

    await usage.sample(instances); // the first read starts at the log's end
    let cpuMicros = 0;
    let counted = 0;
    for (let i = 0; i < SAMPLES; i += 1) {
      await appendFile(log, `${traffic}\n`); // Caddy's writing, not the sampler's: not measured
      const before = process.cpuUsage();
      const samples = await usage.sample(instances);
      const spent = process.cpuUsage(before);
      cpuMicros += spent.user + spent.system;
      counted += samples.reduce((n, s) => n + (s.requests?.status2xx ?? 0) + (s.requests?.status4xx ?? 0), 0);
      if (samples.length !== SITES || samples.some((s) => s.memoryBytes === null))
        throw new Error(`a sample is missing: ${samples.length} of ${SITES}`);
    }
    await reader.close();
    if (counted !== SAMPLES * SITES * REQUESTS_PER_SITE)
      throw new Error(`counted ${counted} responses of ${SAMPLES * SITES * REQUESTS_PER_SITE}`);
    const perSampleMs = cpuMicros / SAMPLES / 1000;
    const perMinuteMs = perSampleMs * 4;
    const share = perMinuteMs / 60_000;
    console.log(
      `Usage sampler, ${SITES} sites (${groups.mode}, ${REQUESTS_PER_SITE} responses per site per 15 s): ${perSampleMs.toFixed(1)} ms CPU per sample, ${perMinuteMs.toFixed(0)} ms per minute = ${(share * 100).toFixed(2)} % of one core (target <= 2 %: ${share <= 0.02 ? 'met' : 'MISSED'})`,
    );
  }
} finally {
  for (const child of children) child.kill('SIGKILL');
  await sleep(300);
  await removeTestGroups(groups);
  await rm(root, { recursive: true, force: true });
}
