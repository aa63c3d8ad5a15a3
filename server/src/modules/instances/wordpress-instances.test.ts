import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessDatabase,
  call,
  callAs,
  createTestServices,
  type DeployBody,
  present,
  register,
  type TestApp,
  variant,
} from '../../../test/create-test-app.ts';
import { type FakeDns, startFakeDns } from '../../../test/fake-dns.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitFor,
  waitForBackup,
  waitForGone,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { mariadbCli } from '../../../test/provisioning/db-clients.ts';
import { required } from '../../../test/provisioning/engines.ts';
import { curl, sftpBatch } from '../../../test/provisioning/site-clients.ts';
import { siteSandbox } from '../../../test/provisioning/site-sandbox.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { type Cipher, createEphemeralCipher } from '../../lib/crypto.ts';
import type { DatabaseCredentials, SftpCredentials } from '../../provisioning/engine.ts';
import { caddyPaths } from '../../provisioning/local/front-door/caddy.ts';
import { siteNames, sitePaths } from '../../provisioning/local/wordpress/site-names.ts';
import { runInSandbox } from '../../provisioning/local/wordpress/site-sandbox.ts';
import type { Services } from '../../services.ts';
import { instanceHasJobs, reconcileInstances } from './queue/instance-jobs.ts';

/**
 * WordPress instances end to end through the API: the real local driver with its site runtime (Caddy,
 * php-fpm, Debian's WordPress, MariaDB, the SFTP server), the real job runner, and real clients (`curl`,
 * OpenSSH's `sftp`, `mariadb`) using only what the API returns. One driver and one site for the file.
 * The routes' rules that need no real site (404 to another user, a database on a site's routes) are in
 * site-rules.test.ts on the memory driver.
 */

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let cipher: Cipher;
let work = '';
let dns: FakeDns;
let services: Services;

const suffix = randomBytes(3).toString('hex');
const title = `Harbour Lights ${suffix}`;
const domain = `shop-${suffix}.example.com`;
const site = {
  name: 'My Blog',
  type: 'WordPress',
  region: 'us-east-1',
  title,
  username: 'captain',
  email: 'captain@example.com',
  password: `it's a "strong" pass ${suffix}`,
  phpversion: '8.2',
} satisfies DeployBody;

let owner: { token: string; userId: string };
let id = '';
let url = '';
let temporaryUrl = '';
let database: DatabaseCredentials;
let sftp: SftpCredentials;

beforeAll(async () => {
  const testDb = await createTestDatabase();
  db = testDb.db;
  // 2 GiB disks: room for the 1 GiB site of the streamed-backup test.
  prov = await startTestProvisioning({ sites: true, siteDiskMb: 2048 });
  cipher = createEphemeralCipher();
  dns = await startFakeDns();
  services = createTestServices(db, { provisioner: prov.driver, cipher, dnsServers: [dns.server] });
  app = createApp(services);
  runner = await startTestRunner({ ...testDb, driver: prov.driver, cipher, vault: services.vault });
  work = await mkdtemp('/tmp/berth-wp-api-client-');
  const { token, user } = await register(app);
  owner = { token, userId: String(user.id) };
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
  await dns?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

const api = callAs(
  () => app,
  () => owner.token,
);

const logs = () => prov.logs.join('\n');
const httpsPort = () => Number(new URL(url).port || 443);
const cacert = () => caddyPaths(prov.root).rootCertificate;
const curlDomain = (args: string[] = []) =>
  curl([
    '--resolve',
    `${domain}:${httpsPort()}:127.0.0.1`,
    '--cacert',
    cacert(),
    ...args,
    `https://${domain}:${httpsPort()}/`,
  ]);

async function waitForSsl(status: string, timeoutMs = 20_000) {
  let last: unknown;
  return waitFor(
    async () => {
      const res = await api('GET', `/api/instances/${id}/ssl`);
      last = res.json;
      return res.status === 200 && res.json.status === status ? res.json : undefined;
    },
    { timeoutMs, what: `SSL ${status} (last ${JSON.stringify(last)})` },
  );
}

/** Waits until the instance has no job waiting or running. */
const jobsDone = (timeoutMs = 15_000) =>
  waitFor(async () => ((await instanceHasJobs(db, id)) ? undefined : true), {
    timeoutMs,
    what: `the jobs of ${id}`,
  });

describe('WordPress instances through the API', { timeout: 60_000 }, () => {
  it('offers WordPress, and refuses invalid WordPress fields before creating anything', async () => {
    const capabilities = await api('GET', '/api/instances/capabilities');
    expect(
      capabilities.json.types.find((t: { type: string }) => t.type === 'wordpress'),
      logs(),
    ).toMatchObject({ available: true, reason: null });
    const versions = await required(prov.driver.engine('wordpress').php).versions();
    // The deploy form's PHP choices are exactly the host's versions (newest first), 8.2 the default.
    expect(capabilities.json.php).toEqual({
      versions: [...versions].sort((a, b) => b.localeCompare(a, 'en', { numeric: true })),
      default: versions.includes('8.2') ? '8.2' : versions[0],
    });
    const offered = capabilities.json.php.versions.map((v: string) => `PHP ${v}`);
    const choose =
      offered.length === 1 ? offered[0] : `${offered.slice(0, -1).join(', ')} or ${offered.at(-1)}`;
    const cases: [Record<string, unknown>, string][] = [
      [{ title: undefined }, 'Site title is required'],
      [{ title: '  ' }, 'Site title is required'],
      [{ username: '' }, 'Admin username is required'],
      [{ email: undefined }, 'Admin email is required'],
      [{ email: 'not-an-email' }, 'Invalid email'],
      [{ password: '' }, 'Admin password is required'],
      [{ password: 'short' }, 'Min 8 characters'],
      [{ phpversion: '' }, 'Please enter a PHP version'],
      [{ phpversion: 'eight' }, 'Please enter a valid PHP version (e.g., 8.2, 7.4, 8.1.5)'],
      [{ phpversion: '8.1.5.1' }, 'Please enter a valid PHP version (e.g., 8.2, 7.4, 8.1.5)'],
      // In the customer's words: what this server offers instead, nothing of the host.
      [{ phpversion: '7.4' }, `PHP 7.4 is not available on this server. Choose ${choose}.`],
      [{ phpversion: '8.0' }, `PHP 8.0 is not available on this server. Choose ${choose}.`],
      [{ domainType: 'Custom Domain' }, 'Custom domain is required'],
      [{ domainType: 'Custom Domain', customDomain: 'https://x.com' }, 'Please enter a valid domain name'],
    ];
    for (const [patch, message] of cases) {
      const badBody = { ...site, ...patch };
      const res = await call(app, 'POST', '/api/instances/deploy', { token: owner.token, badBody });
      expect([res.status, res.json.message], JSON.stringify(patch)).toEqual([400, message]);
    }
    expect((await api('GET', '/api/instances')).json.total).toBe(0);
  });

  it('deploys a site whose url serves the title, and whose admin signs in at wp-login.php', {
    timeout: 120_000,
  }, async () => {
    const started = performance.now();
    const res = await api('POST', '/api/instances/deploy', site);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.instance).toMatchObject({ type: 'WordPress', status: 'deploying', url: null });
    id = res.json.instance.id;
    const instance = await waitForStatus(app, owner.token, id, 'running', 90_000);
    console.log(
      `WordPress deploy through the API to running: ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(instance.url).toMatch(/^http:\/\/[a-z0-9]{12}\.localhost:\d+$/);
    expect(instance.adminUrl).toBe(`${instance.url}/wp-admin/`);
    expect(instance.customDomain).toBeNull();
    url = present(instance.url, 'the temporary URL');
    temporaryUrl = url;

    const page = await curl([url]);
    expect(page.status, page.stderr).toBe(200);
    expect(page.body).toContain(`<title>${title}</title>`);

    const jar = path.join(work, 'cookies.txt');
    const login = `${url}/wp-login.php`;
    expect((await curl(['-c', jar, '-b', jar, login])).status).toBe(200);
    const signIn = await curl([
      ...['-c', jar, '-b', jar],
      ...['--data-urlencode', `log=${site.username}`, '--data-urlencode', `pwd=${site.password}`],
      ...['--data-urlencode', `redirect_to=${instance.adminUrl}`, '-d', 'testcookie=1'],
      login,
    ]);
    expect(signIn.status).toBe(302);
    expect(signIn.headers).toMatch(new RegExp(`^Location: ${instance.adminUrl}\\r?$`, 'mi'));
    const dashboard = await curl(['-b', jar, present(instance.adminUrl, 'the admin URL')]);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toContain('Dashboard');
  });

  it('hands out the database and SFTP logins in /access; SFTP puts and gets inside the site only', async () => {
    const res = await api('GET', `/api/instances/${id}/access`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const { sftp: login } = variant(res.json, 'database');
    const d = accessDatabase(res.json);
    const s = present(login, 'an SFTP login');
    expect(s).toMatchObject({ ipAddress: '127.0.0.1', user: new URL(url).hostname.split('.')[0] });
    expect(d.connectionString).toMatch(/^mysql:\/\//);
    database = { host: d.host, port: d.port, database: d.name, user: d.user, password: d.password };
    sftp = { host: s.ipAddress, port: s.port, user: s.user, password: s.password };
    expect((await mariadbCli(database, 'SELECT COUNT(*) FROM wp_users')).stdout).toBe('1');

    const local = path.join(work, 'sftp');
    await mkdir(local, { recursive: true });
    const content = `uploaded ${suffix}\n`;
    await writeFile(path.join(local, 'hello.txt'), content);
    const session = await sftpBatch(
      sftp,
      ['put hello.txt public/hello.txt', 'get public/hello.txt back.txt', '-get /etc/passwd stolen', 'pwd'],
      local,
    );
    expect(session.code, session.stderr).toBe(0);
    expect(await readFile(path.join(local, 'back.txt'), 'utf8')).toBe(content);
    // The session runs in the site's sandbox: its /etc/passwd names the site's own user, nobody else.
    const stolen = path.join(local, 'stolen');
    if (existsSync(stolen))
      expect(
        (await readFile(stolen, 'utf8'))
          .trim()
          .split('\n')
          .map((line) => line.split(':')[0]),
      ).toEqual([`wp_${s.user}`]);
    expect((await curl([`${url}/hello.txt`])).body).toBe(content);
    const wrong = await sftpBatch({ ...sftp, password: 'wrong-password' }, ['pwd'], local);
    expect(wrong.code).not.toBe(0);
  });

  it('attaches a custom domain over HTTPS (Caddy root CA) once its TXT record is there, SSL becomes Active, and re-issues', async () => {
    for (const [body, message] of [
      [{}, 'Domain is required'],
      [{ domain: ' ' }, 'Domain is required'],
      [{ domain: 'https://shop.example.com' }, 'Please enter a valid domain name'],
      [{ domain: 'no_underscores.example.com' }, 'Please enter a valid domain name'],
      [{ domain: 'nodot' }, 'Please enter a valid domain name'],
    ] as const) {
      const res = await call(app, 'POST', `/api/instances/${id}/domain`, {
        token: owner.token,
        badBody: body,
      });
      expect([res.status, res.json.message], JSON.stringify(body)).toEqual([400, message]);
    }
    await jobsDone();
    expect((await api('GET', `/api/instances/${id}/ssl`)).json).toEqual({ ssl: null, status: 'none' });
    const none = await api('POST', `/api/instances/${id}/ssl`);
    expect([none.status, none.json.message]).toEqual([400, 'SSL is only available for custom domains']);

    const added = await api('POST', `/api/instances/${id}/domain`, { domain: domain.toUpperCase() });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    expect(added.json.message).toBe('Custom domain added successfully');
    // Pending until the TXT record proves ownership: the site is not served on the domain yet.
    expect(added.json.instance.url).toBe(temporaryUrl);
    expect(added.json.instance.customDomain).toMatchObject({
      domain,
      isActive: false,
      ssl: { status: 'Pending', lastChecked: null },
      verification: { status: 'pending', record: { type: 'TXT', name: `_berth-verify.${domain}` } },
    });
    dns.setTxt(
      `_berth-verify.${domain}`,
      present(added.json.instance.customDomain, 'the custom domain').verification.record.value,
    );
    const verified = await api('POST', `/api/instances/${id}/domain/verify`);
    expect([verified.status, verified.json.message], JSON.stringify(verified.json)).toEqual([
      200,
      'Domain verified and attached',
    ]);
    expect(verified.json.instance.url).toMatch(new RegExp(`^https://${domain.replaceAll('.', '\\.')}:\\d+$`));
    expect(verified.json.instance.customDomain).toMatchObject({
      domain,
      isActive: false,
      ssl: { status: 'Pending', lastChecked: null },
      verification: { status: 'attached' },
    });
    url = present(verified.json.instance.url, 'the HTTPS URL');

    const ssl = await waitForSsl('Active');
    expect(ssl.ssl).toMatchObject({ status: 'Active', message: 'HTTPS is enabled' });
    expect(Date.parse(present(ssl.ssl?.expiresAt, 'the certificate expiry'))).toBeGreaterThan(Date.now());
    const secure = await curlDomain();
    expect(secure.status, secure.stderr).toBe(200);
    expect(secure.body).toContain(`<title>${title}</title>`);
    const instance = (await api('GET', `/api/instances/${id}`)).json.instance;
    expect(instance.customDomain).toMatchObject({ domain, isActive: true, ssl: { status: 'Active' } });
    expect(Date.parse(present(instance.customDomain?.addedAt, 'the domain added'))).toBeGreaterThan(
      Date.now() - 120_000,
    );
    const temporary = await curl([temporaryUrl]);
    expect(temporary.status, temporary.headers).toBe(200); // the temporary URL keeps working

    const reissued = await api('POST', `/api/instances/${id}/ssl`);
    expect(reissued.status).toBe(200);
    expect(reissued.json.message).toBe('Requested SSL. It may take a moment to activate.');
    await waitForSsl('Active');
    expect((await curlDomain()).status).toBe(200);
  });

  it('refuses the site’s domain to anyone else’s deploy', async () => {
    const other = await register(app);
    const taken = await api(
      'POST',
      '/api/instances/deploy',
      { ...site, domainType: 'Custom Domain', customDomain: domain },
      other.token,
    );
    expect(taken.status).toBe(409);
  });

  it('backs up, and a deleted post comes back on restore; backups can be deleted', {
    timeout: 120_000,
  }, async () => {
    for (const [body, message] of [
      [{}, 'Backup name is required'],
      [{ name: '  ' }, 'Backup name is required'],
      [{ name: 'n'.repeat(101) }, 'Name too long'],
      [{ name: 'ok', note: 'n'.repeat(501) }, 'Note too long'],
    ] as const) {
      const res = await call(app, 'POST', `/api/instances/${id}/backups/new`, {
        token: owner.token,
        badBody: body,
      });
      expect([res.status, res.json.message], JSON.stringify(body)).toEqual([400, message]);
    }
    const created = await api('POST', `/api/instances/${id}/backups/new`, {
      name: 'Before cleanup',
      note: 'all posts',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const backupId = created.json.id;
    expect(created.json).toEqual({
      id: backupId,
      backupId,
      'backup-id': backupId,
      message: 'Backup creation started',
    });
    const backup = await waitForBackup(app, owner.token, id, backupId);
    expect(backup).toMatchObject({
      id: backupId,
      name: 'Before cleanup',
      note: 'all posts',
      kind: 'manual',
      status: 'complete',
      location: 'This server',
      offsite: false,
    });
    expect(backup.size).toBeGreaterThan(1000);

    // Deleted in WordPress, as in wp-admin (its hooks clear the page cache).
    await runInSandbox(
      siteSandbox(prov.root, id),
      ['/usr/bin/php8.2', '-r', "require '/public/wp-load.php'; wp_delete_post(1, true);"],
      {
        view: 'php',
      },
    );
    expect((await curlDomain()).body).not.toContain('Hello world!');
    const restored = await api('POST', `/api/instances/${id}/backups/${backupId}/restore`);
    expect([restored.status, restored.json.message]).toEqual([202, 'Restore initiated']);
    await waitForStatus(app, owner.token, id, 'running', 60_000);
    const page = await curlDomain();
    expect(page.status).toBe(200);
    expect(page.body).toContain('Hello world!');

    const missing = await api('POST', `/api/instances/${id}/backups/b-nope/restore`);
    expect(missing.status).toBe(404);
    const deleted = await api('DELETE', `/api/instances/${id}/backups/${backupId}`);
    expect([deleted.status, deleted.json.message]).toEqual([200, 'Backup deleted']);
    expect((await api('GET', `/api/instances/${id}/backups`)).json).toEqual([]);
    expect((await api('DELETE', `/api/instances/${id}/backups/${backupId}`)).status).toBe(404);
  });

  it('backs up a 1 GiB site streamed: the server grows by less than 100 MB while it runs', {
    timeout: 600_000,
  }, async () => {
    // 1 GiB of uploads that do not compress, written by the site's own user as an upload would be.
    const uploads = path.join(sitePaths(prov.root, id).public, 'wp-content', 'uploads');
    const big = path.join(uploads, 'big.bin');
    const { unixUser } = siteNames(id);
    execFileSync('runuser', ['-u', unixUser, '--', 'mkdir', '-p', uploads]);
    execFileSync(
      'runuser',
      ['-u', unixUser, '--', 'dd', 'if=/dev/urandom', `of=${big}`, 'bs=1M', 'count=1024'],
      {
        stdio: 'ignore',
      },
    );
    try {
      const rss = () => process.memoryUsage().rss;
      global.gc?.();
      const before = rss();
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rss());
      }, 50);
      let backupId = '';
      try {
        const created = await api('POST', `/api/instances/${id}/backups/new`, { name: 'Big' });
        expect(created.status, JSON.stringify(created.json)).toBe(201);
        backupId = created.json.id;
        const backup = await waitForBackup(app, owner.token, id, backupId, 540_000);
        expect(backup.status, backup.error ?? '').toBe('complete');
        // The whole site went through: at least the 1 GiB of uploads (encrypted, barely compressed).
        expect(backup.bytes).toBeGreaterThanOrEqual(1024 ** 3);
        expect(backup.size).toBeGreaterThanOrEqual(1024 ** 3);
      } finally {
        clearInterval(sampler);
      }
      const grown = peak - before;
      console.log(`1 GiB site backup: the server's RSS grew by ${(grown / 1_048_576).toFixed(1)} MB at most`);
      expect(grown).toBeLessThan(100 * 1_048_576);
      expect((await api('DELETE', `/api/instances/${id}/backups/${backupId}`)).status).toBe(200);
    } finally {
      await rm(big, { force: true });
    }
  });

  it("tells how much of its own disk the site uses (WordPress core takes some, the rest is the customer's)", async () => {
    const res = await api('GET', `/api/instances/${id}/storage`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.usedBytes).toBeGreaterThan(40 * 1_048_576); // core is ~60 MB
    expect(res.json.limitBytes).toBeGreaterThan(900 * 1_048_576); // SITES_DISK_MB's default, 1024 MiB
    expect(res.json.usedBytes).toBeLessThan(res.json.limitBytes);
  });

  it('redeploys on reconcile with the stored credentials (same SFTP and database logins, domain kept)', {
    timeout: 90_000,
  }, async () => {
    await reconcileInstances(db);
    // While the job waits or runs, domain changes are refused (it brings the domain in line itself).
    const busy = await api('DELETE', `/api/instances/${id}/domain`);
    expect([busy.status, busy.json.message]).toEqual([
      409,
      'The instance is busy with another operation; try again in a moment',
    ]);
    await jobsDone(60_000);
    const instance = (await api('GET', `/api/instances/${id}`)).json.instance;
    expect(instance).toMatchObject({ status: 'running', url, customDomain: { domain } });
    const access = variant((await api('GET', `/api/instances/${id}/access`)).json, 'database');
    expect(access.sftp?.password).toBe(sftp.password);
    expect(access.database?.password).toBe(database.password);
    expect((await sftpBatch(sftp, ['pwd'], work)).code).toBe(0);
    expect((await curlDomain()).status).toBe(200);
  });

  it('suspends the site with the subscription (offline, spec messages) and resumes it', {
    timeout: 90_000,
  }, async () => {
    await db
      .updateTable('subscriptions')
      .set({ trial_ends_at: new Date(Date.now() - 60_000) })
      .where('user_id', '=', owner.userId)
      .execute();
    await services.subscriptions.suspendInstancesOf(owner.userId);
    await waitForStatus(app, owner.token, id, 'suspended', 30_000);
    const offline = await curl([temporaryUrl]);
    expect(offline.status).toBe(503);
    expect(offline.body).toContain('This site is temporarily offline');
    expect((await sftpBatch(sftp, ['pwd'], work)).code).not.toBe(0);
    for (const [method, route, body, message] of [
      ['POST', 'backups/new', { name: 'x' }, 'Your subscription is inactive. Creating backups is disabled.'],
      ['POST', 'backups/b-x/restore', undefined, 'Restoring backups is disabled.'],
      ['DELETE', 'backups/b-x', undefined, 'Deleting backups is disabled.'],
      ['POST', 'domain', { domain: 'other.example.com' }, 'Adding domains is disabled.'],
      ['POST', 'ssl', undefined, 'Your subscription is inactive. Requesting SSL is disabled.'],
    ] as const) {
      const res = await api(method, `/api/instances/${id}/${route}`, body);
      expect([res.status, res.json], `${method} ${route}`).toEqual([
        403,
        { error: 'subscription_inactive', message },
      ]);
    }

    await db
      .updateTable('subscriptions')
      .set({ trial_ends_at: new Date(Date.now() + 3_600_000) })
      .where('user_id', '=', owner.userId)
      .execute();
    await services.subscriptions.resumeInstancesOf(owner.userId);
    await waitForStatus(app, owner.token, id, 'running', 30_000);
    await jobsDone();
    expect((await curl([temporaryUrl])).status).toBe(200);
    expect((await sftpBatch(sftp, ['pwd'], work)).code).toBe(0);
  });

  it('removes the custom domain, then deletes the instance and leaves nothing behind', {
    timeout: 90_000,
  }, async () => {
    const removed = await api('DELETE', `/api/instances/${id}/domain`);
    expect([removed.status, removed.json.message]).toEqual([200, 'Custom domain removed successfully']);
    expect(removed.json.instance).toMatchObject({ url: temporaryUrl, customDomain: null });
    expect((await api('GET', `/api/instances/${id}/ssl`)).json).toEqual({ ssl: null, status: 'none' });
    expect((await curlDomain()).code).not.toBe(0);

    await api('POST', `/api/instances/${id}/backups/new`, { name: 'kept until delete' });
    const deleting = await api('DELETE', `/api/instances/${id}`);
    expect(deleting.status).toBe(202);
    await waitForGone(app, owner.token, id, 60_000);
    expect((await curl([temporaryUrl])).status).toBe(404);
    const paths = sitePaths(prov.root, id);
    expect(existsSync(paths.dir)).toBe(false);
    expect(existsSync(paths.stateFile)).toBe(false);
    expect(existsSync(paths.backups)).toBe(false);
    expect((await sftpBatch(sftp, ['pwd'], work)).code).not.toBe(0);
    expect((await mariadbCli(database, 'SELECT 1')).stdout).not.toBe('1');
  });
});
