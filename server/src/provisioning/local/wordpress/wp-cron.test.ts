import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploySite } from '../../../../test/provisioning/engines.ts';
import { ensureSiteTestPackages } from '../../../../test/provisioning/site-clients.ts';
import { siteSandbox } from '../../../../test/provisioning/site-sandbox.ts';
import { cleanUpLocalDriver } from '../../../../test/provisioning/test-driver-cleanup.ts';
import type { ProvisioningDriver } from '../../driver.ts';
import type { SiteSpec } from '../../engine.ts';
import { hostControlGroups } from '../host/control-groups.ts';
import { systemUser } from '../host/host.ts';
import { createLocalDriver } from '../local-driver.ts';
import { siteNames } from './site-names.ts';
import { runInSandbox } from './site-sandbox.ts';

/**
 * WP-Cron on the local driver with a real WordPress site: the site's sandbox has no network, so
 * WordPress's own loopback request cannot run its schedule; the driver runs wp-cron.php in the
 * sandbox on a timer instead. A post scheduled a minute ahead is published with no visit to the site,
 * by a process of the site's own user inside the site's control group.
 */

const parent = `berth-cron-${randomBytes(4).toString('hex')}`;
const groups = hostControlGroups(parent);
let root = '';
let driver: ProvisioningDriver;
const logs: string[] = [];

const spec: SiteSpec = {
  id: randomUUID(),
  title: 'Scheduled',
  adminUser: 'captain',
  adminEmail: 'captain@example.com',
  adminPassword: `pass-${randomBytes(6).toString('hex')}`,
  phpVersion: '8.2',
  resources: { memoryMb: 512, cpus: 1 },
};

beforeAll(async () => {
  await ensureSiteTestPackages();
  // Directly under /tmp: mysql, caddy and the site users must be able to traverse it.
  root = await mkdtemp('/tmp/berth-cron-');
  // The driver's upkeep (WP-Cron, then the page cache sweep) every 5 s instead of 5 minutes.
  driver = createLocalDriver({
    dataRoot: root,
    sites: { upkeepEveryMs: 5000 },
    cgroupParent: parent,
    log: (line) => logs.push(line),
  });
  await driver.start();
  await deploySite(driver, spec);
}, 300_000);

afterAll(() => cleanUpLocalDriver(driver, root, groups), 120_000);

/** PHP run with WordPress loaded, in the site's sandbox (the driver's way of running its CLI). */
const wordpress = async (code: string) =>
  (
    await runInSandbox(
      siteSandbox(root, spec.id),
      ['/usr/bin/php8.2', '-r', `require '/public/wp-load.php'; ${code}`],
      { view: 'php' },
    )
  ).stdout.trim();

/** The commands of the processes in the site's control group now. */
async function groupCommands(): Promise<string[]> {
  const commands: string[] = [];
  for (const procs of groups.joins(spec.id)) {
    const pids = (await readFile(procs, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    for (const pid of pids) {
      const line = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1] ?? '?';
      commands.push(`${uid} ${line.replaceAll('\0', ' ').trim()}`);
    }
  }
  return commands;
}

describe('WP-Cron', () => {
  it('publishes a post scheduled a minute ahead without a visit, run as the site in its group', {
    timeout: 180_000,
  }, async () => {
    // A customer's plugin that lingers 3 s in the publishing hook, so the test can see the process.
    await runInSandbox(
      siteSandbox(root, spec.id),
      [
        '/bin/sh',
        '-c',
        'mkdir -p /public/wp-content/mu-plugins && cat > /public/wp-content/mu-plugins/linger.php',
      ],
      {
        input:
          "<?php add_action('publish_future_post', function () { update_option('berth_published_at', time()); sleep(3); }, 20);\n",
      },
    );
    const id = await wordpress(
      "echo wp_insert_post(['post_title' => 'Next week', 'post_status' => 'future', 'post_date_gmt' => gmdate('Y-m-d H:i:s', time() + 60), 'post_date' => get_date_from_gmt(gmdate('Y-m-d H:i:s', time() + 60))]);",
    );
    expect(Number(id)).toBeGreaterThan(0);
    const status = () => wordpress(`echo get_post_status(${Number(id)});`);
    expect(await status()).toBe('future');
    const scheduledAt = Date.now();

    const user = systemUser(siteNames(spec.id).unixUser);
    if (!user) throw new Error('site user missing');
    let seen: string | undefined;
    let now = await status();
    const deadline = scheduledAt + 120_000;
    while (now !== 'publish' && Date.now() < deadline) {
      seen ??= (await groupCommands()).find((line) => line.includes('wp-cron.php'));
      await sleep(250);
      now = await status();
    }
    // The hook lingers 3 s after publishing: the process is in the group during that time.
    for (let i = 0; i < 10 && seen === undefined; i += 1) {
      seen = (await groupCommands()).find((line) => line.includes('wp-cron.php'));
      await sleep(200);
    }
    expect(now, logs.join('\n')).toBe('publish');
    const waited = (Date.now() - scheduledAt) / 1000;
    console.log(`[wp-cron] a post scheduled 60 s ahead was published after ${waited.toFixed(0)} s`);
    expect(waited).toBeGreaterThanOrEqual(55);
    expect(seen, 'a wp-cron.php process in the site’s control group').toBeDefined();
    expect(seen?.split(' ')[0]).toBe(String(user.uid));
  });
});
