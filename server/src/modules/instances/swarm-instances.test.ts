import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOf } from '../../../test/contract/clients.ts';
import { describeDriverContract } from '../../../test/contract/driver-contract.ts';
import { swarmContractHarness } from '../../../test/contract/swarm-contract-harness.ts';
import {
  accessDatabase,
  call,
  createTestApp,
  type DeployBody,
  present,
  register,
  registerAdmin,
  type TestApp,
} from '../../../test/create-test-app.ts';
import {
  startTestRunner,
  waitFor,
  waitForBackup,
  waitForGone,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { tenantCli } from '../../../test/provisioning/db-clients.ts';
import { curl } from '../../../test/provisioning/site-clients.ts';
import { type SwarmHarness, startSwarmHarness } from '../../../test/provisioning/swarm-harness.ts';
import { testArchives } from '../../../test/provisioning/test-archives.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/test-db.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../provisioning/engine.ts';
import { killLocalNode, restartLocalNode } from '../../provisioning/swarm/local-swarm.ts';
import { instanceNames } from '../../provisioning/swarm/services.ts';
import { createNotificationsService } from '../notifications/notifications.service.ts';
import { createInstanceLiveStates } from './jobs/instance-live-states.ts';

/**
 * The same instances service and jobs as on the local driver, with the swarm driver behind them: a
 * customer deploys a MySQL instance into a region through the API, connects with the credentials the
 * API gives, changes its password, backs it up and restores it, and deletes it; a region without a
 * swarm is refused with its reason. Nothing here knows which driver runs (issue 24).
 */

let database: TestDatabase;
let h: SwarmHarness;
let app: TestApp;
let runner: JobRunner;
let liveStates: ReturnType<typeof createInstanceLiveStates> | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startSwarmHarness();
  const cipher = createEphemeralCipher();
  const { vault } = await testArchives();
  app = createTestApp(database.db, { provisioner: h.driver, cipher, backupVault: vault });
  runner = await startTestRunner({ ...database, driver: h.driver, cipher, vault });
  // What the swarm sees happen between operations (a node down, lost, back), as main.ts carries it.
  liveStates = createInstanceLiveStates({
    db: database.db,
    driver: h.driver,
    notifications: createNotificationsService({ db: database.db }),
  });
  liveStates.start((line) => console.log(`[live] ${line}`));
}, 600_000);

afterAll(async () => {
  await liveStates?.stop();
  await runner?.stop();
  await h?.stop();
}, 120_000);

async function proUser() {
  const account = await register(app);
  await database.db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active' })
    .where('user_id', '=', String(account.user.id))
    .execute();
  return account;
}

let adminAccount: Awaited<ReturnType<typeof registerAdmin>> | undefined;
/** The platform's admin (made by the first test that needs one). */
async function theAdmin() {
  adminAccount ??= await registerAdmin(app, database.db);
  return adminAccount;
}

async function credentialsOf(token: string, id: string): Promise<DatabaseCredentials> {
  const access = await call(app, 'GET', `/api/instances/${id}/access`, { token });
  expect(access.status, JSON.stringify(access.json)).toBe(200);
  const { host, port, name, user, password } = accessDatabase(access.json);
  return { host, port, database: name, user, password };
}

describe('instances through the API on the swarm driver', { timeout: 180_000 }, () => {
  it('offers the regions that have a swarm, and refuses another with its reason', async () => {
    const { token } = await proUser();
    const capabilities = await call(app, 'GET', '/api/instances/capabilities', { token });
    const offered = capabilities.json.regions.filter((region) => region.available).map((region) => region.id);
    expect(offered.sort()).toEqual(['eu-west-1', 'us-east-1']);
    const refused = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'Far', type: 'MySQL', region: 'ap-south-1' },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe('No servers in this region yet');
  });

  it('deploys MySQL into eu-west-1, changes its password, backs it up and restores it, then deletes it', async () => {
    const { token } = await proUser();
    const deployed = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'Orders', type: 'MySQL', region: 'eu-west-1', memory: '1GB', cpu: '1' },
    });
    expect(deployed.status, JSON.stringify(deployed.json)).toBe(202);
    const id = deployed.json.instance.id;
    const running = await waitForStatus(app, token, id, 'running', 120_000);
    expect(running.region).toBe('eu-west-1');
    // The service runs on a node of that region, with the memory and CPU it was sold.
    const service = JSON.parse(
      await h.docker('euw1-m', 'service', 'inspect', '--format', '{{json .Spec}}', instanceNames(id).service),
    ) as { TaskTemplate: { Resources: { Limits: { MemoryBytes: number; NanoCPUs: number } } } };
    expect(service.TaskTemplate.Resources.Limits).toMatchObject({ MemoryBytes: 1024 ** 3, NanoCPUs: 1e9 });

    // The admin sees where it runs: eu-west-1's nodes as the swarm reports them, the instance counted
    // on the node that holds it and its memory reserved there; a region without a swarm has no nodes.
    const regions = await call(app, 'GET', '/api/admin/regions', { token: (await theAdmin()).token });
    expect(regions.status).toBe(200);
    expect(regions.json.scheduler).toBe('swarm');
    const eu = present(regions.json.regions.find((region) => region.region === 'eu-west-1'));
    expect(eu.available).toBe(true);
    expect(eu.nodes.length).toBeGreaterThan(0);
    for (const node of eu.nodes) expect(node.labels.region).toBe('eu-west-1');
    const holder = present(
      eu.nodes.find((node) => node.instances > 0),
      'the node running the instance',
    );
    expect(holder.memoryReservedBytes).toBeGreaterThanOrEqual(1024 ** 3);
    expect(holder.memoryReservedBytes).toBeLessThanOrEqual(holder.memoryBytes);
    const far = present(regions.json.regions.find((region) => region.region === 'ap-south-1'));
    expect([far.available, far.nodes]).toEqual([false, []]);
    expect((await call(app, 'GET', '/api/admin/regions', { token })).status).toBe(403);

    const first = await credentialsOf(token, id);
    expect((await tenantCli('mysql', first, 'CREATE TABLE t (n INT); INSERT INTO t VALUES (1)')).ok).toBe(
      true,
    );

    const changed = await call(app, 'POST', `/api/instances/${id}/password`, {
      token,
      body: { type: 'MySQL', password: 'Swarm-new-pass-2026' },
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect((await tenantCli('mysql', first, 'SELECT 1')).ok).toBe(false);
    const second = await credentialsOf(token, id);
    expect(second.password).toBe('Swarm-new-pass-2026');

    // Backups are the engine's capability: a database on swarm has them through the same routes.
    const backup = await call(app, 'POST', `/api/instances/${id}/backups/new`, {
      token,
      body: { name: 'before cleanup' },
    });
    expect(backup.status, JSON.stringify(backup.json)).toBe(201);
    expect(await waitForBackup(app, token, id, backup.json.id)).toMatchObject({ status: 'complete' });
    expect((await tenantCli('mysql', second, 'DELETE FROM t')).ok).toBe(true);
    const restored = await call(app, 'POST', `/api/instances/${id}/backups/${backup.json.id}/restore`, {
      token,
    });
    expect(restored.status, JSON.stringify(restored.json)).toBe(202);
    await waitForStatus(app, token, id, 'running', 120_000);
    expect((await tenantCli('mysql', second, 'SELECT COUNT(*) FROM t')).stdout).toBe('1');

    expect((await call(app, 'DELETE', `/api/instances/${id}`, { token })).status).toBe(202);
    await waitForGone(app, token, id, 120_000);
    const left = await h.docker(
      'euw1-m',
      'service',
      'ls',
      '--filter',
      `name=${instanceNames(id).service}`,
      '-q',
    );
    expect(left).toBe('');
  });
});

// The driver contract on this swarm (eu-west-1), before a server of us-east-1 is lost below: every
// capability × type through the API with the customers' real clients (.vitest-results/contract-swarm.md).
describeDriverContract(swarmContractHarness(() => h));

/**
 * Keeps new instances off the manager while a test deploys onto the worker: a placeholder service holds
 * its CPUs (draining the manager would keep its front door from joining their networks). Answers the
 * release.
 */
async function holdManager(): Promise<() => Promise<void>> {
  const manager = 'use1-m';
  const image = await h.docker(manager, 'images', '--format', '{{.Repository}}:{{.Tag}}', 'berth/agent');
  await h.docker(
    manager,
    'service',
    'create',
    '--detach',
    '--name',
    'placeholder',
    '--no-resolve-image',
    '--reserve-cpu',
    '1.9',
    '--constraint',
    'node.role==manager',
    '--entrypoint',
    'sleep',
    image,
    'infinity',
  );
  await waitFor(
    async () =>
      (await h.docker(manager, 'service', 'ps', 'placeholder', '--format', '{{.CurrentState}}')).startsWith(
        'Running',
      )
        ? true
        : undefined,
    { timeoutMs: 60_000, what: 'the placeholder running' },
  );
  return async () => {
    await h.docker(manager, 'service', 'rm', 'placeholder');
  };
}

/** The site's own file (wp-content/uploads/note.txt), written inside its container on the worker. */
async function uploadNote(siteId: string, text: string): Promise<void> {
  await h.docker(
    'use1-w',
    'exec',
    '-u',
    'www-data',
    await h.containerOf('use1-w', instanceNames(siteId).service),
    'sh',
    '-c',
    `mkdir -p /var/www/wordpress/wp-content/uploads && echo ${text} > /var/www/wordpress/wp-content/uploads/note.txt`,
  );
}

/** The node id of an instance's service (its `berth.node` label), or '' while it has none. */
async function nodeOfInstance(id: string): Promise<string> {
  const labels = await h
    .docker('use1-m', 'service', 'inspect', '--format', '{{json .Spec.Labels}}', instanceNames(id).service)
    .catch(() => '{}');
  return (JSON.parse(labels) as Record<string, string>)['berth.node'] ?? '';
}

describe('a server lost for good', { timeout: 900_000 }, () => {
  it('brings each instance back elsewhere from its latest backup, tells its owner, and fences the old server', async () => {
    const { token, user } = await proUser();
    const manager = 'use1-m';
    const worker = present(h.swarm.nodes.find((node) => node.name === 'use1-w'));
    const release = await holdManager();
    const deploy = async (body: DeployBody) => {
      const deployed = await call(app, 'POST', '/api/instances/deploy', { token, body });
      expect(deployed.status, JSON.stringify(deployed.json)).toBe(202);
      return deployed.json.instance.id;
    };
    const site = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: {
        name: 'Bakery',
        type: 'WordPress',
        region: 'us-east-1',
        memory: '512MB',
        cpu: '0.5',
        title: 'Lost Bakery',
        username: 'baker',
        email: 'baker@example.com',
        password: 'Baker-pass-2026',
        phpversion: '8.2',
      },
    });
    expect(site.status, JSON.stringify(site.json)).toBe(202);
    const wp = site.json.instance.id;
    // The worker's two vCPUs hold them all: the site 0.5 (+0.25 its database), n8n 0.5, each database 0.25.
    const mysql = await deploy({
      name: 'Ledger',
      type: 'MySQL',
      region: 'us-east-1',
      memory: '512MB',
      cpu: '0.25',
    });
    const pg = await deploy({
      name: 'Stock',
      type: 'PostgreSQL',
      region: 'us-east-1',
      memory: '512MB',
      cpu: '0.25',
    });
    const owner = { email: 'flows@example.com', password: 'Flows-lost-2026' };
    const n8n = await deploy({
      name: 'Flows',
      type: 'n8n',
      region: 'us-east-1',
      memory: '1GB',
      cpu: '0.5',
      ...owner,
    });
    const all = [mysql, pg, wp, n8n];
    for (const id of all) await waitForStatus(app, token, id, 'running', 300_000);
    await release();
    for (const id of all) {
      const { nodeLabels } = await h.inspect(manager, instanceNames(id).service);
      expect(nodeLabels['berth.public-address']).toBe(worker.address);
    }
    const before = { mysql: await credentialsOf(token, mysql), pg: await credentialsOf(token, pg) };
    expect(
      (await tenantCli('mysql', before.mysql, "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('backed up')"))
        .ok,
    ).toBe(true);
    expect(
      (
        await tenantCli(
          'postgresql',
          before.pg,
          "CREATE TABLE t (v text); INSERT INTO t VALUES ('backed up')",
        )
      ).ok,
    ).toBe(true);
    // The site's own file, uploaded before the backup.
    const front = present(h.swarm.nodes.find((node) => node.name === manager)).address;
    const siteUrl = present((await call(app, 'GET', `/api/instances/${wp}`, { token })).json.instance.url);
    const siteHost = new URL(siteUrl).host;
    const page = (path: string) =>
      curl(['--resolve', `${siteHost}:80:${front}`, `http://${siteHost}${path}`]);
    await uploadNote(wp, 'kept');
    // A workflow of n8n's, made before the backup (its customer's client: n8n's REST API, signed in).
    const work = await mkdtemp(path.join(tmpdir(), 'berth-lost-n8n-'));
    const n8nUrl = present((await call(app, 'GET', `/api/instances/${n8n}`, { token })).json.instance.url);
    const flows = await clientOf(
      { work, frontDoor: front },
      { type: 'n8n', url: n8nUrl, database: null, owner },
      n8n,
    );
    await flows.mark('kept-workflow');
    for (const id of all) {
      const backup = await call(app, 'POST', `/api/instances/${id}/backups/new`, {
        token,
        body: { name: 'nightly' },
      });
      expect(backup.status, JSON.stringify(backup.json)).toBe(201);
      expect(await waitForBackup(app, token, id, backup.json.id)).toMatchObject({ status: 'complete' });
    }
    // Written after the backup: lost with the server.
    await tenantCli('mysql', before.mysql, "INSERT INTO t VALUES ('too late')");

    const lostAt = Date.now();
    await killLocalNode(worker);
    const managerAddress = present(h.swarm.nodes.find((node) => node.name === manager)).address;
    // Each is placed again on a server that is up (the manager), then runs.
    const managerNode = await h.docker(manager, 'node', 'inspect', '--format', '{{.ID}}', 'self');
    for (const id of all) {
      await waitFor(async () => ((await nodeOfInstance(id)) === managerNode ? true : undefined), {
        timeoutMs: 300_000,
        what: `${id} placed again on the manager`,
      });
    }
    // The site is back once its front door serves it again, with its file.
    await waitFor(
      async () => {
        const now = await call(app, 'GET', `/api/instances/${wp}`, { token });
        if (now.json.instance?.status !== 'running') return undefined;
        const answer = await page('/wp-content/uploads/note.txt');
        return answer.status === 200 ? answer : undefined;
      },
      { timeoutMs: 300_000, what: 'the site running again on another server' },
    );
    expect((await page('/wp-content/uploads/note.txt')).body.trim()).toBe('kept');
    expect((await page('/')).body).toContain('Lost Bakery');
    // Back once it runs again on another server: its credentials name that server.
    for (const id of [mysql, pg]) {
      await waitFor(
        async () => {
          const now = await call(app, 'GET', `/api/instances/${id}`, { token });
          if (now.json.instance?.status !== 'running') return undefined;
          const access = await call(app, 'GET', `/api/instances/${id}/access`, { token });
          return access.status === 200 && accessDatabase(access.json).host === managerAddress
            ? true
            : undefined;
        },
        { timeoutMs: 300_000, what: `${id} running again on another server` },
      );
    }
    await waitForStatus(app, token, n8n, 'running', 300_000);
    await waitFor(async () => ((await flows.marks()).includes('kept-workflow') ? true : undefined), {
      timeoutMs: 120_000,
      what: 'the n8n workflow back on another server',
    });
    const recovered = (Date.now() - lostAt) / 1000;
    console.log(
      `lost a worker with a MySQL, a PostgreSQL, a WordPress and an n8n instance: all running again in ${recovered.toFixed(0)} s`,
    );
    await rm(work, { recursive: true, force: true });
    // Elsewhere, with the backup's data (what came after it is gone), the same database, user and password.
    const after = { mysql: await credentialsOf(token, mysql), pg: await credentialsOf(token, pg) };
    expect(after.mysql).toMatchObject({
      host: managerAddress,
      database: before.mysql.database,
      user: before.mysql.user,
      password: before.mysql.password,
    });
    expect((await tenantCli('mysql', after.mysql, 'SELECT v FROM t')).stdout).toBe('backed up');
    expect((await tenantCli('postgresql', after.pg, 'SELECT v FROM t')).stdout).toBe('backed up');
    // Its owner was told, with the time of the backup it came back from, and where to connect now.
    const notes = await database.db
      .selectFrom('notifications')
      .select(['title', 'message'])
      .where('user_id', '=', String(user.id))
      .execute();
    expect(notes.find((note) => note.title === 'Server lost')?.message).toMatch(
      /Its server was lost: it is being restored on another server from the backup of \d+ \w+, \d\d:\d\d UTC/,
    );
    expect(notes.some((note) => note.title === 'Connection details changed')).toBe(true);

    // The admin sees it lost (down, labelled, drained: fenced).
    const regions = await call(app, 'GET', '/api/admin/regions', { token: (await theAdmin()).token });
    const lostNode = regions.json.regions
      .find((region) => region.region === 'us-east-1')
      ?.nodes.find((node) => node.hostname === `${h.swarm.name}-use1-w`);
    expect(lostNode?.labels['berth.lost']).toBeDefined();
    expect(lostNode).toMatchObject({ availability: 'drain' });
    expect(lostNode?.state).not.toBe('ready');

    // The old server comes back: fenced, it runs nothing of theirs and keeps none of their volumes.
    await restartLocalNode(worker);
    await waitFor(
      async () => {
        const labels = JSON.parse(
          await h.docker(
            manager,
            'node',
            'inspect',
            '--format',
            '{{json .Spec.Labels}}',
            `${h.swarm.name}-use1-w`,
          ),
        ) as Record<string, string>;
        return labels['berth.lost'] === undefined ? true : undefined;
      },
      { timeoutMs: 120_000, what: 'the returned server cleared' },
    );
    for (const id of all) {
      expect(await h.docker('use1-w', 'ps', '-aq', '--filter', `label=berth.instance=${id}`)).toBe('');
      expect(await h.docker('use1-w', 'volume', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
        '',
      );
    }
    for (const id of all)
      expect((await call(app, 'DELETE', `/api/instances/${id}`, { token })).status).toBe(202);
  });
});

describe('a server drained from Admin → Server', { timeout: 900_000 }, () => {
  it('moves its site and its database to another server with everything written, tells their owner, and leaves a site whose copy fails where it was', async () => {
    const { token, user } = await proUser();
    const admin = await theAdmin();
    const manager = 'use1-m';
    const managerAddress = present(h.swarm.nodes.find((node) => node.name === manager)).address;
    const workerNode = await h.docker(
      manager,
      'node',
      'inspect',
      '--format',
      '{{.ID}}',
      `${h.swarm.name}-use1-w`,
    );
    const managerNode = await h.docker(manager, 'node', 'inspect', '--format', '{{.ID}}', 'self');
    const release = await holdManager();
    const site = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: {
        name: 'Mill',
        type: 'WordPress',
        region: 'us-east-1',
        memory: '512MB',
        cpu: '0.5',
        title: 'Moving Mill',
        username: 'miller',
        email: 'miller@example.com',
        password: 'Miller-pass-2026',
        phpversion: '8.2',
      },
    });
    expect(site.status, JSON.stringify(site.json)).toBe(202);
    const db = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'Grain', type: 'MySQL', region: 'us-east-1', memory: '512MB', cpu: '0.25' },
    });
    expect(db.status, JSON.stringify(db.json)).toBe(202);
    const [wp, mysql] = [site.json.instance.id, db.json.instance.id];
    for (const id of [wp, mysql]) await waitForStatus(app, token, id, 'running', 300_000);
    await release();
    for (const id of [wp, mysql]) expect(await nodeOfInstance(id)).toBe(workerNode);

    // Written up to the moment of the drain: no backup is involved, nothing may be lost.
    const before = await credentialsOf(token, mysql);
    expect(
      (await tenantCli('mysql', before, "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('first')")).ok,
    ).toBe(true);
    await uploadNote(wp, 'moved');
    expect((await tenantCli('mysql', before, "INSERT INTO t VALUES ('just before the drain')")).ok).toBe(
      true,
    );
    // A file of the site's own that nobody may read (mode 000): its copy fails, and the move must leave
    // the site where it was, running, with nothing of it on the other server.
    const siteFiles = (script: string) =>
      h
        .containerOf('use1-w', instanceNames(wp).service)
        .then((container) => h.docker('use1-w', 'exec', '-u', 'www-data', container, 'sh', '-c', script));
    await siteFiles(
      'cd /var/www/wordpress/wp-content/uploads && echo private > locked.txt && chmod 000 locked.txt',
    );

    // The manager runs the front door, and a region keeps one server in service: neither is drained.
    const refused = await call(app, 'POST', `/api/admin/regions/nodes/${managerNode}/drain`, {
      token: admin.token,
    });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe('A manager runs its region’s front door: it cannot be drained');
    const notAdmin = await call(app, 'POST', `/api/admin/regions/nodes/${workerNode}/drain`, { token });
    expect(notAdmin.status).toBe(403);

    const drainedAt = Date.now();
    const drained = await call(app, 'POST', `/api/admin/regions/nodes/${workerNode}/drain`, {
      token: admin.token,
    });
    expect(drained.status, JSON.stringify(drained.json)).toBe(202);
    expect(drained.json).toEqual({
      moving: 2,
      message: 'Drained: 2 instances are being moved to other servers',
    });
    const movedTo = (id: string, node: string) =>
      waitFor(
        async () => {
          const now = await call(app, 'GET', `/api/instances/${id}`, { token });
          return now.json.instance?.status === 'running' &&
            now.json.instance.statusMessage === null &&
            (await nodeOfInstance(id)) === node
            ? true
            : undefined;
        },
        { timeoutMs: 300_000, what: `${id} running on ${node}` },
      );
    await movedTo(mysql, managerNode);
    const failed = await waitFor(
      async () =>
        (
          await database.db
            .selectFrom('notifications')
            .select('message')
            .where('user_id', '=', String(user.id))
            .where('title', '=', 'Move failed')
            .executeTakeFirst()
        )?.message,
      { timeoutMs: 300_000, what: 'the site’s move given up' },
    );
    expect(failed).toMatch(/^Your WordPress instance "Mill": It could not be moved, and runs where it was/);
    await movedTo(wp, workerNode);
    expect(await h.docker(manager, 'volume', 'ls', '-q', '--filter', `label=berth.instance=${wp}`)).toBe('');
    const siteAddress = new URL(
      present((await call(app, 'GET', `/api/instances/${wp}`, { token })).json.instance.url),
    ).host;
    const stayed = await waitFor(
      async () => {
        const answer = await curl([
          '--resolve',
          `${siteAddress}:80:${managerAddress}`,
          `http://${siteAddress}/wp-content/uploads/note.txt`,
        ]);
        return answer.status === 200 ? answer : undefined;
      },
      { timeoutMs: 60_000, what: 'the site serving again where it was' },
    );
    expect(stayed.body.trim()).toBe('moved');
    // Readable again: drained again, the site moves too.
    await siteFiles('chmod 644 /var/www/wordpress/wp-content/uploads/locked.txt');
    const again = await call(app, 'POST', `/api/admin/regions/nodes/${workerNode}/drain`, {
      token: admin.token,
    });
    expect(again.json).toEqual({ moving: 1, message: 'Drained: 1 instance is being moved to other servers' });
    await movedTo(wp, managerNode);
    console.log(
      `drained a worker holding a site and a MySQL instance: both moved in ${((Date.now() - drainedAt) / 1000).toFixed(0)} s (the site's first move given up on an unreadable file)`,
    );

    // Everything is there, the last write included; the database keeps its port, user and password.
    const after = await credentialsOf(token, mysql);
    expect(after).toEqual({ ...before, host: managerAddress });
    expect((await tenantCli('mysql', after, 'SELECT v FROM t ORDER BY v')).stdout).toBe(
      'first\njust before the drain',
    );
    const siteUrl = present((await call(app, 'GET', `/api/instances/${wp}`, { token })).json.instance.url);
    const siteHost = new URL(siteUrl).host;
    const page = (path: string) =>
      curl(['--resolve', `${siteHost}:80:${managerAddress}`, `http://${siteHost}${path}`]);
    expect((await page('/wp-content/uploads/note.txt')).body.trim()).toBe('moved');
    expect((await page('/')).body).toContain('Moving Mill');

    // Their owner was told before and after, and where the database is reached now.
    const notes = await database.db
      .selectFrom('notifications')
      .select(['title', 'message'])
      .where('user_id', '=', String(user.id))
      .execute();
    const titled = (title: string) => notes.filter((note) => note.title === title).length;
    expect(titled('Moving to another server')).toBe(3);
    expect(titled('Move failed')).toBe(1);
    expect(titled('Moved')).toBe(2);
    expect(notes.find((note) => note.title === 'Connection details changed')?.message).toContain(
      `${managerAddress}:${before.port}`,
    );

    // The drained server keeps nothing of theirs, and the admin sees it drained and empty.
    for (const id of [wp, mysql]) {
      expect(await h.docker('use1-w', 'ps', '-aq', '--filter', `label=berth.instance=${id}`)).toBe('');
      expect(await h.docker('use1-w', 'volume', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
        '',
      );
    }
    const regions = await call(app, 'GET', '/api/admin/regions', { token: admin.token });
    const shown = regions.json.regions
      .find((region) => region.region === 'us-east-1')
      ?.nodes.find((node) => node.id === workerNode);
    expect(shown?.labels['berth.draining']).toBeDefined();
    expect(shown).toMatchObject({ availability: 'active', instances: 0 });

    const back = await call(app, 'POST', `/api/admin/regions/nodes/${workerNode}/activate`, {
      token: admin.token,
    });
    expect(back.status).toBe(200);
    const labels = JSON.parse(
      await h.docker(manager, 'node', 'inspect', '--format', '{{json .Spec.Labels}}', workerNode),
    ) as Record<string, string>;
    expect(labels['berth.draining']).toBeUndefined();
    for (const id of [wp, mysql])
      expect((await call(app, 'DELETE', `/api/instances/${id}`, { token })).status).toBe(202);
  });
});
