import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestServices, register } from '../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { siteSandbox } from '../../../test/provisioning/site-sandbox.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';
import { runInSandbox } from '../../provisioning/local/wordpress/site-sandbox.ts';
import type { Services } from '../../services.ts';

/**
 * Usage end to end with the real local driver: a WordPress site deployed through the API with 512MB and
 * 1 vCPU runs in a control group of that size (cgroup v1 here), php-fpm behind Caddy; the usage module
 * samples it through driver.usage as main.ts does every 15 s (here: when the test says). A scripted burst
 * of 500 requests shows as 500 in the report, the memory line moves, and a PHP script that allocates past
 * the site's memory is stopped by the kernel while the site keeps serving, which the report and the
 * owner's notifications say.
 */

const MIB = 1024 * 1024;
let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let services: Services;
let app: ReturnType<typeof createApp>;
let owner: { token: string; userId: string };
let id = '';
let host = '';
let port = 0;

beforeAll(async () => {
  const testDb = await createTestDatabase();
  db = testDb.db;
  prov = await startTestProvisioning({ sites: true });
  const cipher = createEphemeralCipher();
  services = createTestServices(db, { provisioner: prov.driver, cipher });
  app = createApp(services);
  runner = await startTestRunner({ ...testDb, driver: prov.driver, cipher });
  const { token, user } = await register(app);
  owner = { token, userId: String(user.id) };
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
}, 60_000);

/** GET `path` on the site through the front door (Caddy), as a visitor would; answers the status. */
function visit(path: string, agent?: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path, headers: { Host: host }, agent },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
  });
}

const report = async (range = '1h') =>
  (await call(app, 'GET', `/api/instances/${id}/usage?range=${range}`, { token: owner.token })).json;

describe('a WordPress site’s usage, measured for real', { timeout: 180_000 }, () => {
  it('deploys with the memory and CPU asked for, enforced', async () => {
    const res = await call(app, 'POST', '/api/instances/deploy', {
      token: owner.token,
      body: {
        name: 'Measured blog',
        type: 'WordPress',
        memory: '512MB',
        cpu: '1',
        title: 'Measured',
        username: 'captain',
        email: 'captain@example.com',
        password: 'a "strong" pass 42!',
        phpversion: '8.2',
      },
    });
    expect(res.status).toBe(202);
    id = res.json.instance.id;
    const instance = await waitForStatus(app, owner.token, id, 'running', 120_000);
    const url = new URL(instance.url ?? '');
    host = url.host;
    port = Number(url.port);
    expect(instance.deploymentConfig).toMatchObject({ memory: '512MB', cpu: '1' });

    expect(await services.usage.collect()).toBeGreaterThanOrEqual(1);
    const first = await report();
    expect(first.summary.memory.limit).toBe(512 * MIB);
    expect(first.cpuLimit).toBe(1);
    expect(first.limits).toEqual([
      { label: 'Memory', value: '512MB for this instance alone, enforced by the kernel', enforced: true },
      { label: 'CPU', value: '1 vCPU for this instance alone, enforced by the kernel', enforced: true },
    ]);
  });

  it('counts a scripted burst of 500 requests, and the memory line moves', async () => {
    await services.usage.collect();
    const before = await report();
    const idleMemory = before.summary.memory.current ?? 0;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    // 400 anonymous pages (the page cache answers) and 100 rendered by PHP (a query bypasses the cache).
    const paths = Array.from({ length: 500 }, (_, i) => (i % 5 === 0 ? `/?s=burst-${i}` : '/'));
    const statuses: number[] = [];
    for (let i = 0; i < paths.length; i += 8)
      statuses.push(...(await Promise.all(paths.slice(i, i + 8).map((path) => visit(path, agent)))));
    agent.destroy();
    expect(statuses.filter((status) => status === 200)).toHaveLength(500);

    await services.usage.collect();
    const after = await report();
    const counted = (after.summary.requests?.total ?? 0) - (before.summary.requests?.total ?? 0);
    console.log(
      `[usage] burst of 500: counted ${counted}; memory ${(idleMemory / MIB).toFixed(1)} MiB idle → ${((after.summary.memory.current ?? 0) / MIB).toFixed(1)} MiB after (peak ${((after.summary.memory.peak ?? 0) / MIB).toFixed(1)} MiB)`,
    );
    expect(counted).toBe(500);
    expect(after.summary.requests?.status2xx).toBeGreaterThanOrEqual(500);
    // PHP's workers came up for the 100 rendered pages: the memory the site held during the burst
    // (the point's peak: the kernel's high-water mark, reset at each sample) moved. What it holds once
    // the burst is over may already be back near idle, so the current value is only printed.
    expect(after.points.at(-1)?.memoryPeakBytes).toBeGreaterThan(idleMemory + 5 * MIB);
    expect(after.points.at(-1)?.cpu).toBeGreaterThan(0);
  });

  it('stops a PHP script that allocates past the site’s memory, keeps serving, and says so', async () => {
    // 8 MiB at a time, up to 1 GiB, in a site of 512MB.
    await runInSandbox(siteSandbox(prov.root, id), ['/bin/sh', '-c', 'cat > /public/hog.php'], {
      input:
        "<?php $a = []; for ($i = 0; $i < 128; $i++) { $a[] = str_repeat('x', 8 << 20); } echo 'survived';\n",
    });
    await services.usage.collect();
    expect(await visit('/hog.php')).toBe(502);
    // The site's other pages are served, by PHP too (a new worker).
    expect(await visit('/wp-login.php')).toBe(200);
    expect(await visit('/')).toBe(200);

    await services.usage.collect();
    const after = await report();
    expect(after.lastOutOfMemoryAt).not.toBeNull();
    expect(after.summary.memory.peak).toBeGreaterThan(400 * MIB);
    expect(after.points.some((point) => point.oomKills > 0)).toBe(true);
    const notices = await db
      .selectFrom('notifications')
      .select(['title', 'message'])
      .where('user_id', '=', owner.userId)
      .where('title', '=', 'Restarted after running out of memory')
      .execute();
    expect(notices).toHaveLength(1);
    expect(notices[0]?.message).toMatch(
      /^Your WordPress instance "Measured blog" ran out of its memory \(512MB\) at \d\d:\d\d UTC/,
    );
    console.log(`[usage] out of memory at ${after.lastOutOfMemoryAt}: ${notices[0]?.message}`);
  });
});
