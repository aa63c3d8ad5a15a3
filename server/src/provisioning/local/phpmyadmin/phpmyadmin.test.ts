import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployDatabase } from '../../../../test/provisioning/engines.ts';
import { curl, ensureSiteTestPackages } from '../../../../test/provisioning/site-clients.ts';
import { cleanUpLocalDriver } from '../../../../test/provisioning/test-driver-cleanup.ts';
import type { ProvisioningDriver } from '../../driver.ts';
import type { DatabaseCredentials } from '../../engine.ts';
import { type ControlGroups, hostControlGroups } from '../host/control-groups.ts';
import { systemUser } from '../host/host.ts';
import { installedPhpVersions } from '../host/php.ts';
import { TENANT_IDS } from '../host/tenant-users.ts';
import { createLocalDriver } from '../local-driver.ts';
import { phpMyAdminPaths } from './phpmyadmin-instances.ts';
import { runInPhpMyAdminSandbox } from './phpmyadmin-sandbox.ts';

/**
 * phpMyAdmin of MySQL instances with a server of their own, tried as a customer and as a hostile one
 * would: real Caddy, php-fpm with Debian's phpMyAdmin in its sandbox, each instance's own MariaDB, and
 * `curl` with a cookie jar filling in the login form. Its link opens the login page; the instance's
 * credentials reach its database's page; another instance's credentials, root, and a server named at
 * login are refused; its sandbox's user is not root and reaches its own server only.
 */

const run = promisify(execFile);
const parent = `berth-test-pma-${process.pid}`;
let root = '';
let work = '';
let driver: ProvisioningDriver | undefined;
let groups: ControlGroups;
const logs: string[] = [];

interface Deployed {
  id: string;
  credentials: DatabaseCredentials;
  link: string;
}
const instances: Deployed[] = [];

beforeAll(async () => {
  await ensureSiteTestPackages();
  root = await mkdtemp('/tmp/berth-pma-');
  work = await mkdtemp('/tmp/berth-pma-client-');
  groups = hostControlGroups(parent);
  driver = createLocalDriver({
    dataRoot: root,
    sites: {},
    mysqlDiskMb: 64,
    postgresDiskMb: 64,
    cgroupParent: parent,
    log: (line) => logs.push(line),
  });
  await driver.start();
}, 300_000);

afterAll(async () => {
  await cleanUpLocalDriver(driver, root, groups);
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

function required<T>(value: T | undefined | null, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`missing ${what}\n${logs.join('\n')}`);
  return value;
}

const instance = (at: number) => required(instances[at], `instance ${at}`);

/** curl to the front door, resolving the link's host to this machine. */
function pmaCurl(link: string, args: string[], pathAndQuery = '/') {
  const url = new URL(link);
  return curl([
    '--resolve',
    `${url.hostname}:${url.port}:127.0.0.1`,
    ...args,
    `${url.protocol}//${url.host}${pathAndQuery}`,
  ]);
}

const field = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

/**
 * Fills in phpMyAdmin's login form at `link` as a browser would (the cookie jar `jar` keeps the
 * session), with `extra` form fields; answers the response to the form's POST.
 */
async function logIn(link: string, jar: string, user: string, password: string, extra: string[] = []) {
  const cookies = ['-c', path.join(work, jar), '-b', path.join(work, jar)];
  const page = await pmaCurl(link, cookies);
  expect(page.status, page.stderr).toBe(200);
  return pmaCurl(
    link,
    [
      ...cookies,
      '--data-urlencode',
      `pma_username=${user}`,
      '--data-urlencode',
      `pma_password=${password}`,
      '--data-urlencode',
      `token=${field(page.body, 'token')}`,
      '--data-urlencode',
      `set_session=${field(page.body, 'set_session')}`,
      '--data',
      'server=1&route=/&lang=en',
      ...extra.flatMap((pair) => ['--data-urlencode', pair]),
    ],
    '/index.php?route=/',
  );
}

/** The database's structure page, with the session in `jar`. */
const structurePage = (link: string, jar: string, database: string) =>
  pmaCurl(
    link,
    ['-b', path.join(work, jar)],
    `/index.php?route=/database/structure&db=${encodeURIComponent(database)}`,
  );

/** Runs a command as `uid` on the host (no sandbox); answers its stderr when it fails, else 'allowed'. */
const runAs = (uid: number, args: string[]) =>
  run('/usr/bin/setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...args]).then(
    () => 'allowed',
    (error: { stderr?: string }) => error.stderr ?? 'refused',
  );

const pidsOf = (uid: number) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        // Zombies have ended; their parent has not reaped them yet.
        return !/^State:\s+Z/m.test(status) && new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status);
      } catch {
        return false;
      }
    });

describe('phpMyAdmin for MySQL instances with a server of their own', () => {
  it('gives each MySQL instance a phpMyAdmin link of its own, and PostgreSQL none', async () => {
    const d = required(driver);
    for (const name of ['harbour', 'lighthouse']) {
      const id = randomUUID();
      const credentials = await deployDatabase(d, 'mysql', { id, resources: { memoryMb: 256, cpus: 0.5 } });
      const link = required(credentials.phpmyadmin, `the phpMyAdmin link of ${name}`);
      expect(link).toMatch(
        new RegExp(`^http://pma-${id.replaceAll('-', '').slice(0, 12)}\\.localhost:\\d+/$`),
      );
      instances.push({ id, credentials, link });
      await run(
        '/usr/bin/mariadb',
        [
          '--no-defaults',
          `--host=${credentials.host}`,
          `--port=${credentials.port}`,
          `--user=${credentials.user}`,
          '--ssl',
          credentials.database,
          `--execute=CREATE TABLE ${name}_ships (id INT PRIMARY KEY, name TEXT); INSERT INTO ${name}_ships VALUES (1, 'Endeavour')`,
        ],
        { env: { PATH: '/usr/bin:/bin', MYSQL_PWD: credentials.password } },
      );
    }
    expect(instance(0).link).not.toBe(instance(1).link);
    const pg = await deployDatabase(d, 'postgresql', { id: randomUUID() });
    expect(pg.phpmyadmin ?? null).toBeNull();
  }, 180_000);

  it("answers the login page on the instance's link, and serves none of its code or configuration", async () => {
    const page = await pmaCurl(instance(0).link, []);
    expect(page.status).toBe(200);
    expect(page.body).toContain('name="pma_username"');
    // Nothing but phpMyAdmin's entry points and static files: its configuration and libraries are not served.
    for (const hidden of [
      '/libraries/config.default.php',
      '/config.inc.php',
      '/setup/',
      '/templates/login/form.twig',
    ])
      expect((await pmaCurl(instance(0).link, [], hidden)).status, hidden).toBe(404);
    expect((await pmaCurl(instance(0).link, [], '/themes/pmahomme/css/theme.css')).status).toBe(200);
  });

  it("logs in with the instance's own credentials and reaches its database's page", async () => {
    const { credentials, link } = instance(0);
    // The server refuses logins without TLS: getting in proves phpMyAdmin speaks TLS to it.
    const login = await logIn(link, 'a.jar', credentials.user, credentials.password);
    expect(login.status, login.body.slice(0, 2000)).toBe(302);
    const page = await structurePage(link, 'a.jar', credentials.database);
    expect(page.status).toBe(200);
    expect(page.body).toContain('harbour_ships');
    expect(page.body).not.toContain('name="pma_username"');
  });

  it("refuses another instance's credentials, root, and a server named at login", async () => {
    const a = instance(0);
    const b = instance(1);
    // B's credentials are good (on B's own link)…
    expect((await logIn(b.link, 'b.jar', b.credentials.user, b.credentials.password)).status).toBe(302);
    expect((await structurePage(b.link, 'b.jar', b.credentials.database)).body).toContain('lighthouse_ships');
    // …and refused on A's, even naming B's server or port in the form (AllowArbitraryServer is off).
    const attempts: [string, string, string, string[]][] = [
      ['b-on-a.jar', b.credentials.user, b.credentials.password, []],
      [
        'b-named.jar',
        b.credentials.user,
        b.credentials.password,
        [`pma_servername=127.0.0.1:${b.credentials.port}`, `pma_serverport=${b.credentials.port}`],
      ],
      ['root.jar', 'root', '', []],
      ['root-pw.jar', 'root', a.credentials.password, []],
      ['wrong.jar', a.credentials.user, `${a.credentials.password}x`, []],
    ];
    for (const [jar, user, password, extra] of attempts) {
      const refused = await logIn(a.link, jar, user, password, extra);
      expect(refused.status, `${user} ${extra.join(' ')}`).toBe(200);
      expect(refused.body).toMatch(/Access denied|1045|Login without a password is forbidden/);
      const page = await structurePage(a.link, jar, b.credentials.database);
      expect(page.body).toContain('name="pma_username"');
      expect(page.body).not.toContain('lighthouse_ships');
    }
    // A's session cookie does not open B's phpMyAdmin (another host, another key).
    const cross = await structurePage(b.link, 'a.jar', b.credentials.database);
    expect(cross.body).toContain('name="pma_username"');
  }, 60_000);

  it('runs as a user of its own, not root, that reaches its own server only and no tenant data', async () => {
    const a = instance(0);
    const b = instance(1);
    const user = required(systemUser(phpMyAdminPaths(root, a.id).unixUser), 'the phpMyAdmin user');
    expect(user.uid).toBeGreaterThanOrEqual(TENANT_IDS.first);
    // php-fpm and its sandbox run as that user; none of them as root.
    const pids = pidsOf(user.uid);
    expect(pids.length).toBeGreaterThan(0);
    // What one phpMyAdmin costs after a login and a page (its group: pasta, bwrap, php-fpm, /tmp).
    const memory = (await groups.stats(phpMyAdminPaths(root, a.id).group))?.memoryBytes;
    if (memory !== undefined)
      console.log(`phpMyAdmin of one instance: ${(memory / 1024 / 1024).toFixed(1)} MiB`);
    expect(pids.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8')).join('\n')).toMatch(/php-fpm/);
    // A probe in a sandbox like phpMyAdmin's (its user, view and network): who it is, what it sees,
    // which ports answer.
    const paths = phpMyAdminPaths(root, a.id);
    const sandbox = { user, etcDir: paths.etc, runDir: paths.run, port: a.credentials.port, joins: [] };
    const probe = `
      echo "uid=" . posix_getuid() . "\\n";
      foreach ([${a.credentials.port}, ${b.credentials.port}, 5432, 3306, 2019] as $port) {
        $s = @fsockopen('127.0.0.1', $port, $errno, $errstr, 2);
        echo "port $port " . ($s ? 'open' : 'refused') . "\\n";
      }
      echo "root " . implode(',', scandir('/')) . "\\n";
      echo "data " . (file_exists(${JSON.stringify(root)}) ? 'visible' : 'absent') . "\\n";
      $s = @fsockopen('1.1.1.1', 80, $errno, $errstr, 2);
      echo "outside " . ($s ? 'open' : 'refused') . "\\n";
    `;
    const php = `/usr/bin/php${required(installedPhpVersions()[0], 'PHP')}`;
    const { stdout } = await runInPhpMyAdminSandbox(sandbox, [php, '-r', probe]);
    expect(stdout).toContain(`uid=${user.uid}`);
    expect(stdout).toContain(`port ${a.credentials.port} open`);
    for (const port of [b.credentials.port, 5432, 3306, 2019])
      expect(stdout).toContain(`port ${port} refused`);
    expect(stdout).toContain('data absent');
    expect(stdout).toContain('outside refused');
    expect(stdout).not.toMatch(/root .*\b(home|root|var|srv)\b/);
    // On the host, that user cannot read either instance's data folder.
    for (const id of [a.id, b.id]) {
      const listed = await runAs(user.uid, ['/bin/ls', path.join(root, 'db', id, 'data')]);
      expect(listed, id).toMatch(/Permission denied/);
    }
  }, 60_000);

  it('shows the offline page while the instance is suspended, and its login again once resumed', async () => {
    const a = instance(0);
    const engine = required(driver).engine('mysql');
    await engine.suspend(a.id);
    expect((await pmaCurl(a.link, [])).status).toBe(503);
    await engine.resume(a.id);
    const back = await pmaCurl(a.link, []);
    expect(back.status).toBe(200);
    expect(back.body).toContain('name="pma_username"');
  }, 60_000);

  it('removes its phpMyAdmin with the instance: link, user and process', async () => {
    const a = instance(0);
    const user = required(systemUser(phpMyAdminPaths(root, a.id).unixUser));
    await required(driver).engine('mysql').delete(a.id);
    expect((await pmaCurl(a.link, [])).status).toBe(404);
    expect(systemUser(phpMyAdminPaths(root, a.id).unixUser)).toBeUndefined();
    expect(pidsOf(user.uid)).toEqual([]);
    // The other instance's phpMyAdmin goes on.
    expect((await pmaCurl(instance(1).link, [])).status).toBe(200);
  }, 60_000);
});
