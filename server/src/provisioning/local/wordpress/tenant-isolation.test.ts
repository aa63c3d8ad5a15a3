import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployedSite, deploySite, required } from '../../../../test/provisioning/engines.ts';
import { killLeftoverServers } from '../../../../test/provisioning/leftover-servers.ts';
import {
  curl,
  ensureSiteTestPackages,
  runCommand,
  sftpBatch,
} from '../../../../test/provisioning/site-clients.ts';
import { removeSiteUsersUnder, siteSandbox } from '../../../../test/provisioning/site-sandbox.ts';
import { testArchives } from '../../../../test/provisioning/test-archives.ts';
import { POSIX_KEPT } from '../../apps/php-rules.ts';
import { SFTP_SERVER } from '../../apps/wordpress/sftp-server.ts';
import type { ProvisioningDriver } from '../../driver.ts';
import type { SiteSpec } from '../../engine.ts';
import { mariadbPaths } from '../databases/mariadb-server.ts';
import { CADDY_OUTPUT_MAX_BYTES, caddyAdmin, caddyPaths, localCaddy } from '../front-door/caddy.ts';
import { systemUser } from '../host/host.ts';
import { descendants } from '../host/supervisor.ts';
import { createLocalDriver } from '../local-driver.ts';
import { CACHE_PATH } from './page-cache.ts';
import { phpSettings } from './php-fpm.ts';
import { siteNames, sitePaths } from './site-names.ts';
import { runInSandbox } from './site-sandbox.ts';

/**
 * The tenant isolation attack suite: each finding of the security review replayed as a customer with an
 * SFTP login and PHP would, against the real sandbox (bubblewrap), Caddy, php-fpm, MariaDB and
 * OpenSSH's sftp. Site A attacks; site B and the host are the victims. What must hold: no file outside
 * A changes owner or content, A's code reaches nothing of B's or the platform's, uploads never run, and
 * the SFTP server cannot be made to eat the host's memory.
 */

let root = '';
let work = '';
let driver: ProvisioningDriver;
const logs: string[] = [];
const DISK_MB = 256;
const newDriver = () =>
  createLocalDriver({
    dataRoot: root,
    sites: { diskMb: DISK_MB },
    log: (line) => logs.push(line),
  });

const suffix = randomBytes(3).toString('hex');
const specOf = (title: string): SiteSpec => ({
  id: randomUUID(),
  title,
  adminUser: 'captain',
  adminEmail: 'captain@example.com',
  adminPassword: `strong pass ${suffix}`,
  phpVersion: '8.2',
});
const specA = specOf(`Attacker ${suffix}`);
const specB = specOf(`Victim ${suffix}`);
let a: DeployedSite;
let b: DeployedSite;

/** A service on the host's loopback that no site may reach (stands for any 127.0.0.1 service). */
let canaryServer: http.Server;
let canaryPort = 0;
/** Root-owned files outside every site that attacks aim at; checked for owner, mode and content. */
let canaryFile = '';
let canaryDir = '';

beforeAll(async () => {
  await ensureSiteTestPackages();
  root = await mkdtemp('/tmp/berth-iso-');
  work = await mkdtemp('/tmp/berth-iso-client-');
  canaryDir = await mkdtemp('/tmp/berth-iso-canary-');
  await chmod(canaryDir, 0o755);
  canaryFile = path.join(canaryDir, 'host-file.txt');
  await writeFile(canaryFile, `host secret ${suffix}\n`, { mode: 0o644 });
  canaryServer = http.createServer((_request, response) => response.end('host service'));
  await new Promise<void>((resolve) => canaryServer.listen(0, '127.0.0.1', resolve));
  canaryPort = (canaryServer.address() as AddressInfo).port;
  driver = newDriver();
  await driver.start();
  [a, b] = await Promise.all([deploySite(driver, specA), deploySite(driver, specB)]);
}, 300_000);

afterAll(async () => {
  canaryServer?.close();
  await driver?.stop().catch(() => {});
  killLeftoverServers(root);
  await removeSiteUsersUnder(root);
  for (const dir of [root, work, canaryDir]) if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

interface Fingerprint {
  uid: number;
  gid: number;
  mode: number;
  sha256: string;
}
/** Every line a passwd entry: name:password:uid:gid:gecos:home:shell. */
const PASSWD_LINE = /^[^:\n]*:[^:\n]*:\d+:\d+:[^:\n]*:[^:\n]*:[^:\n]*$/;

function fingerprint(file: string): Fingerprint {
  const stats = statSync(file);
  const content = readFileSync(file);
  // Other test files add and remove site users meanwhile: /etc/passwd may gain or lose entries, but
  // a write through a planted link would leave text in it that is no passwd entry.
  const passwdIntact =
    file === '/etc/passwd' &&
    content
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      .every((line) => PASSWD_LINE.test(line));
  return {
    uid: stats.uid,
    gid: stats.gid,
    mode: stats.mode,
    sha256: passwdIntact ? 'only passwd entries' : createHash('sha256').update(content).digest('hex'),
  };
}

/** Files outside site A that a root process led astray would write or chown. */
const victims = () => [
  canaryFile,
  '/etc/passwd',
  '/usr/share/wordpress/wp-includes/version.php',
  '/usr/share/php/getid3/getid3.php',
  sitePaths(root, specB.id).wpConfig,
  path.join(sitePaths(root, specB.id).public, 'index.php'),
];

const siteUser = (access: DeployedSite) => {
  const user = systemUser(`wp_${access.sftp.user}`);
  if (!user) throw new Error('site user missing');
  return user;
};

/** A PHP script testing what it can reach, answering JSON: reads, listings, connections. */
function probeScript(): string {
  const targets = {
    read: [
      sitePaths(root, specB.id).wpConfig,
      path.join(root, 'site-state', `${specB.id}.json`),
      path.join(root, 'mariadb.json'),
      '/etc/shadow',
      canaryFile,
    ],
    list: [path.join(root, 'sites'), root, '/home', '/root'],
    tcp: [
      `127.0.0.1:${canaryPort}`,
      '169.254.169.254:80',
      `127.0.0.1:${portOf('mariadb')}`,
      `127.0.0.1:${portOf('postgresql')}`,
    ],
    unix: [
      path.join(root, 'run', 'caddy', 'admin.sock'),
      path.join(sitePaths(root, specB.id).dir, 'run', 'php.sock'),
      path.join(root, 'postgresql', 'run', `.s.PGSQL.${portOf('postgresql')}`),
      mariadbPaths(root).socket,
    ],
  };
  return `<?php
$t = json_decode(${JSON.stringify(JSON.stringify(targets))}, true);
$r = ['read' => [], 'list' => [], 'tcp' => [], 'unix' => [], 'root' => @scandir('/')];
foreach ($t['read'] as $f) { $r['read'][$f] = @file_get_contents($f) !== false; }
foreach ($t['list'] as $d) { $r['list'][$d] = @scandir($d) !== false; }
foreach ($t['tcp'] as $x) { $r['tcp'][$x] = @stream_socket_client("tcp://$x", $e, $s, 2) !== false; }
foreach ($t['unix'] as $x) { $r['unix'][$x] = @stream_socket_client("unix://$x", $e, $s, 2) !== false; }
echo json_encode($r);
`;
}

function portOf(engine: 'mariadb' | 'postgresql'): number {
  return (JSON.parse(readFileSync(path.join(root, `${engine}.json`), 'utf8')) as { port: number }).port;
}

interface ProbeResult {
  read: Record<string, boolean>;
  list: Record<string, boolean>;
  tcp: Record<string, boolean>;
  unix: Record<string, boolean>;
  root: string[] | false;
}

function expectNothingReached(result: ProbeResult): void {
  for (const group of ['read', 'list', 'tcp', 'unix'] as const) {
    const reached = Object.entries(result[group]).filter(([, ok]) => ok);
    expect(reached, `${group}: ${JSON.stringify(result[group])}`).toEqual([]);
  }
}

describe('tenant isolation: a customer attacking the host and other sites', { timeout: 120_000 }, () => {
  it('copies WordPress core without a single symbolic link (nothing points out of the site)', async () => {
    const links = await runCommand('/usr/bin/find', [sitePaths(root, specA.id).public, '-type', 'l']);
    expect(links.stdout).toBe('');
    expect(existsSync(path.join(sitePaths(root, specA.id).public, 'wp-includes/ID3/getid3.php'))).toBe(true);
  });

  it('a core symlink renamed onto wp-config.php.new, .maintenance and the restore folder changes nothing outside the site (domain, redeploy, backup, restore)', async () => {
    const before = victims().map(fingerprint);
    const local = path.join(work, 'links');
    await mkdir(local, { recursive: true });
    // What the customer can do over SFTP: links aimed at files outside the site, under the names the
    // driver writes.
    const planted = await sftpBatch(
      a.sftp,
      [
        `-ln -s ${canaryFile} public/wp-config.php.new`,
        `-ln -s ${canaryFile} public/.maintenance`,
        `-ln -s ${canaryDir} tmp/.berth-restore-x`,
        '-ln -s /etc/passwd public/passwd-link',
      ],
      local,
    );
    expect(planted.code, planted.stderr).toBe(0);
    // And as the site user directly on the host (stronger than the sandbox allows), the same names.
    const user = siteUser(a);
    const attacker = spawn(
      '/bin/sh',
      [
        '-c',
        `cd "${sitePaths(root, specA.id).public}" && ln -sfn "${sitePaths(root, specB.id).wpConfig}" wp-config.php.new 2>/dev/null; ln -sfn "${canaryFile}" .maintenance 2>/dev/null; true`,
      ],
      { uid: user.uid, gid: user.gid },
    );
    await new Promise((resolve) => attacker.on('close', resolve));

    await required(driver.engine('wordpress').domains).set(specA.id, `attack-${suffix}.example.com`);
    await deploySite(driver, {
      ...specA,
      databasePassword: a.database.password,
      sftpPassword: a.sftp.password,
    });
    const archives = await testArchives();
    const backup = await archives.dump(driver.engine('wordpress').backups, specA, 'before-restore');
    await archives.restore(driver.engine('wordpress').backups, specA, backup);
    await required(driver.engine('wordpress').domains).set(specA.id, null);

    expect(victims().map(fingerprint)).toEqual(before);
    expect((await curl([a.temporaryUrl])).status).toBe(200);
  });

  it('PHP uploaded to site A reaches nothing of site B, the platform or the host', async () => {
    const local = path.join(work, 'probe');
    await mkdir(local, { recursive: true });
    await writeFile(path.join(local, 'probe.php'), probeScript());
    const put = await sftpBatch(a.sftp, ['put probe.php public/probe.php'], local);
    expect(put.code, put.stderr).toBe(0);
    const page = await curl([`${a.url}/probe.php`]);
    expect(page.status, page.body).toBe(200);
    expectNothingReached(JSON.parse(page.body) as ProbeResult);
  });

  it('the sandbox alone holds, without PHP restrictions (no open_basedir, no disabled functions)', async () => {
    const file = path.join(sitePaths(root, specA.id).public, 'probe.php');
    expect(existsSync(file)).toBe(true);
    const { stdout } = await runInSandbox(
      siteSandbox(root, specA.id),
      ['/usr/bin/php8.2', '-n', '/public/probe.php'],
      { view: 'php' },
    );
    const result = JSON.parse(stdout) as ProbeResult;
    expectNothingReached(result);
    // All it sees at / is the sandbox: its own folders and the read-only system parts.
    expect(result.root).not.toBe(false);
    for (const entry of result.root || []) {
      expect([
        '.',
        '..',
        'bin',
        'dev',
        'etc',
        'lib',
        'lib64',
        'logs',
        'proc',
        'public',
        'run',
        'sbin',
        'tmp',
        'usr',
      ]).toContain(entry);
    }
  });

  it('never executes PHP under wp-content/uploads, at any depth, in any case, however the path is written', async () => {
    const local = path.join(work, 'uploads');
    await mkdir(local, { recursive: true });
    const code = '<?php echo "EXECUTED-" . (40 + 2);\n';
    const names = ['x.php', 'x.PHP', 'x.phtml', 'x.phar', 'x.php7'];
    for (const name of names) await writeFile(path.join(local, name), code);
    const put = await sftpBatch(
      a.sftp,
      [
        '-mkdir public/wp-content/uploads',
        '-mkdir public/wp-content/uploads/2024',
        '-mkdir public/wp-content/uploads/2024/05',
        ...names.map((name) => `put ${name} public/wp-content/uploads/2024/05/${name}`),
      ],
      local,
    );
    expect(put.code, put.stderr).toBe(0);
    const paths = [
      ...names.map((name) => `/wp-content/uploads/2024/05/${name}`),
      '/wp-content/uploads/2024/../2024/05/x.php',
      '//wp-content/uploads/2024/05/x.php',
      '/wp-content//uploads/2024/05/x.php',
      '/wp-content/uploads/2024/05/x.php/anything',
      '/WP-CONTENT/uploads/2024/05/x.php',
      '/wp-content/uploads/2024/05/%78.php',
    ];
    for (const target of paths) {
      const response = await curl(['--path-as-is', `${a.url}${target}`]);
      expect(response.body, target).not.toContain('EXECUTED-42');
      expect(response.status, target).not.toBe(200);
    }
  });

  it('the front door serves no file through a symbolic link and runs as caddy, not root', async () => {
    const local = path.join(work, 'front');
    await mkdir(local, { recursive: true });
    const linked = await sftpBatch(
      a.sftp,
      [
        `-ln -s ${canaryFile} public/leak.txt`,
        `-ln -s ${path.join(sitePaths(root, specB.id).public, 'readme.html')} public/leak.html`,
      ],
      local,
    );
    expect(linked.code, linked.stderr).toBe(0);
    for (const file of ['leak.txt', 'leak.html']) {
      const response = await curl([`${a.url}/${file}`]);
      expect(response.body, file).not.toContain(`host secret ${suffix}`);
      expect(response.body, file).not.toContain('Semantic Personal Publishing Platform');
    }
    const pid = Number(readFileSync(path.join(root, 'run', 'caddy.pid'), 'utf8'));
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const caddy = systemUser('caddy');
    expect(status).toMatch(new RegExp(`^Uid:\\s+${caddy?.uid}\\s+${caddy?.uid}\\s+${caddy?.uid}`, 'm'));
  });

  it('on ports below 1024 Caddy still runs as caddy, with CAP_NET_BIND_SERVICE only', async () => {
    const caddyRoot = await mkdtemp('/tmp/berth-iso-caddy-');
    await chmod(caddyRoot, 0o711); // caddy passes through to its own folders
    const caddyUser = systemUser('caddy');
    let port = 0;
    for (const candidate of [1017, 1018, 1019, 1021, 1022]) {
      if ((await runCommand('/usr/bin/curl', ['-s', `http://127.0.0.1:${candidate}/`])).code === 7) {
        port = candidate;
        break;
      }
    }
    expect(port, 'a free port below 1024').toBeGreaterThan(0);
    await mkdir(path.join(caddyRoot, 'run'), { recursive: true });
    await mkdir(path.join(caddyRoot, 'logs'), { recursive: true });
    const front = localCaddy(caddyRoot, caddyUser, true, () => {});
    try {
      await front.start({
        admin: { listen: `unix/${caddyPaths(caddyRoot).adminSocket}`, origins: ['localhost'] },
        apps: {
          http: {
            servers: {
              low: {
                listen: [`127.0.0.1:${port}`],
                routes: [{ handle: [{ handler: 'static_response', body: 'low port' }] }],
              },
            },
          },
        },
      });
      expect((await curl([`http://127.0.0.1:${port}/`])).body).toBe('low port');
      const pid = Number(readFileSync(caddyPaths(caddyRoot).pidFile, 'utf8'));
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(status).toMatch(new RegExp(`^Uid:\\s+${caddyUser?.uid}\\s+${caddyUser?.uid}`, 'm'));
      // CAP_NET_BIND_SERVICE is bit 10: 0x400, and nothing else.
      expect(status).toMatch(/^CapEff:\s+0000000000000400$/m);
    } finally {
      await front.stop();
      await rm(caddyRoot, { recursive: true, force: true });
    }
  });

  it('an SFTP READ asking for 1 GiB and a SETSTAT to 1 TiB cost the server nothing', async () => {
    const rssOf = (pid: number) =>
      Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    const before = process.memoryUsage().rss;
    const session = await rawSftp(a);
    try {
      const handle = await session.open('/public/index.php');
      const sessionPids = descendants(process.pid).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sftp-server');
        } catch {
          return false;
        }
      });
      // Measured over the session's own sftp-server: a list that found none would prove nothing.
      expect(sessionPids.length).toBeGreaterThan(0);
      for (let i = 0; i < 2; i++) {
        const answer = await session.read(handle, 0, 2 ** 30);
        expect(answer.type === 103 || answer.type === 101).toBe(true); // DATA (capped) or STATUS
        expect(answer.length).toBeLessThan(1024 * 1024);
      }
      const grown = process.memoryUsage().rss - before;
      const children = sessionPids.reduce((sum, pid) => sum + rssOf(pid), 0);
      console.log(
        `SFTP 1 GiB reads: server RSS +${(grown / 1048576).toFixed(1)} MB, sftp-server ${(children / 1048576).toFixed(1)} MB`,
      );
      expect(grown).toBeLessThan(50 * 1024 * 1024);
      expect(children).toBeLessThan(50 * 1024 * 1024);
      await session.setSize('/public/huge.bin', 2 ** 40).catch(() => {});
    } finally {
      session.close();
    }
    const huge = path.join(sitePaths(root, specA.id).public, 'huge.bin');
    if (existsSync(huge)) expect(statSync(huge).size).toBeLessThanOrEqual(DISK_MB * 1024 * 1024);
  });

  it('a site cannot write beyond its disk', async () => {
    const local = path.join(work, 'quota');
    await mkdir(local, { recursive: true });
    const big = path.join(local, 'big.bin');
    await runCommand('/bin/sh', ['-c', `head -c ${(DISK_MB + 16) * 1024 * 1024} /dev/zero > ${big}`]);
    const put = await sftpBatch(a.sftp, ['put big.bin public/big.bin'], local);
    expect(put.code).not.toBe(0);
    await sftpBatch(a.sftp, ['-rm public/big.bin'], local);
    expect((await curl([a.temporaryUrl])).status).toBe(200);
  });

  it('parallel swaps of the names the driver writes, over 200 tries, never make root touch a file outside the site', {
    timeout: 300_000,
  }, async () => {
    const before = victims().map(fingerprint);
    const user = siteUser(a);
    const publicDir = sitePaths(root, specA.id).public;
    const targets = [canaryFile, sitePaths(root, specB.id).wpConfig, '/etc/passwd'];
    const script = `
cd "${publicDir}"
while :; do
  for t in ${targets.map((t) => `"${t}"`).join(' ')}; do
    ln -sfn "$t" wp-config.php.new.tmp 2>/dev/null && mv -fT wp-config.php.new.tmp wp-config.php.new 2>/dev/null
    ln -sfn "$t" .maintenance 2>/dev/null
    rm -f wp-config.php.new 2>/dev/null
  done
done`;
    const swappers: ChildProcess[] = [0, 1].map(() =>
      spawn('/bin/sh', ['-c', script], { uid: user.uid, gid: user.gid, stdio: 'ignore' }),
    );
    try {
      for (let i = 0; i < 100; i++) {
        await required(driver.engine('wordpress').domains).set(specA.id, `race-${suffix}.example.com`);
        await required(driver.engine('wordpress').domains).set(specA.id, null);
      }
    } finally {
      for (const swapper of swappers) swapper.kill('SIGKILL');
      await sleep(100);
    }
    expect(victims().map(fingerprint)).toEqual(before);
    // Both sites still serve once the front door has applied the last of the 200 changes (on a loaded
    // machine its reload can still be under way when the loop ends).
    const serves = async (url: string) => {
      let status = (await curl([url])).status;
      for (let i = 0; i < 20 && status !== 200; i++) {
        await sleep(500);
        status = (await curl([url])).status;
      }
      return status;
    };
    expect(await serves(a.temporaryUrl)).toBe(200);
    expect(await serves(b.temporaryUrl)).toBe(200);
  });

  it('PHP cannot make a FIFO or device node: posix_mkfifo/mknod are gone, FFI is off, and the sandbox refuses mknod but for files', async () => {
    const local = path.join(work, 'fifo');
    await mkdir(local, { recursive: true });
    await writeFile(path.join(local, 'fifo.php'), FIFO_PROBE);
    const put = await sftpBatch(a.sftp, ['put fifo.php public/fifo.php'], local);
    expect(put.code, put.stderr).toBe(0);
    const page = await curl([`${a.url}/fifo.php`]);
    expect(page.status, page.body).toBe(200);
    expect(JSON.parse(page.body)).toEqual({
      functions: {
        posix_mkfifo: false,
        posix_mknod: false,
        posix_kill: false,
        posix_setsid: false,
        posix_uname: false,
        posix_getpwuid: true,
      },
      ffi: 'FFI\\Exception',
      made: false,
    });
    // Every posix_* function this PHP has is decided on: disabled, or one of the lookups kept.
    const posix = await runInSandbox(siteSandbox(root, specA.id), [
      '/usr/bin/php8.2',
      '-r',
      'echo json_encode(get_extension_funcs("posix"));',
    ]);
    const disabled = phpSettings(512).disable_functions?.split(',') ?? [];
    const undecided = (JSON.parse(posix.stdout) as string[]).filter(
      (name) => !disabled.includes(name) && !POSIX_KEPT.includes(name),
    );
    expect(undecided).toEqual([]);
    // The CLI (WP-Cron runs the customer's plugins there) has the same settings: no FFI either.
    const sandbox = siteSandbox(root, specA.id);
    const settings = Object.entries(phpSettings(512)).flatMap(([name, value]) => ['-d', `${name}=${value}`]);
    const cli = await runInSandbox(sandbox, ['/usr/bin/php8.2', ...settings, '/public/fifo.php'], {
      view: 'php',
    });
    expect(JSON.parse(cli.stdout)).toMatchObject({ ffi: 'FFI\\Exception', made: false });
    // Native code in the site's sandbox (what any way around PHP would reach): refused by the filter.
    for (const command of [
      ['/usr/bin/mkfifo', '/public/fifo.txt'],
      ['/usr/bin/mknod', '/tmp/null', 'c', '1', '3'],
      ['/usr/bin/mknod', '/public/pipe', 'p'],
    ]) {
      await expect(runInSandbox(sandbox, command, { view: 'php' }), command.join(' ')).rejects.toMatchObject({
        output: expect.stringContaining('Operation not permitted'),
      });
    }
    expect(existsSync(path.join(sitePaths(root, specA.id).public, 'fifo.txt'))).toBe(false);
    // The running php-fpm and an SFTP session are under the filter (mode 2: a seccomp filter).
    const phpPid = Number(readFileSync(path.join(root, 'run', `php-${siteNames(specA.id).key}.pid`), 'utf8'));
    const master = descendants(phpPid).find((pid) => cmdlineOf(pid).startsWith('php-fpm: master'));
    expect(master).toBeDefined();
    expect(seccompOf(master ?? 0)).toBe(2);
    const session = await rawSftp(a);
    try {
      const sftpPid = descendants(process.pid).find((pid) => cmdlineOf(pid).startsWith(SFTP_SERVER));
      expect(sftpPid).toBeDefined();
      expect(seccompOf(sftpPid ?? 0)).toBe(2);
    } finally {
      session.close();
    }
  });

  it("FIFOs left on a site's disk (made before the filter) are gone after a restart: 2,000 requests for them leave Caddy under 50 threads and site B answering within 1 s", {
    timeout: 300_000,
  }, async () => {
    const publicA = sitePaths(root, specA.id).public;
    const hostA = new URL(a.url).hostname;
    const cacheFifo = path.join(publicA, CACHE_PATH, hostA, 'index.html');
    // An old site: its user made them on the host, before sandboxes had a filter (a FIFO as the public
    // file and as the page cache's copy of the home page).
    const user = siteUser(a);
    const made = await runAs(
      user,
      `mkfifo "${publicA}/fifo.txt" && mkdir -p "$(dirname "${cacheFifo}")" && rm -f "${cacheFifo}" && mkfifo "${cacheFifo}"`,
    );
    expect(made, 'mkfifo as the site user').toBe(0);
    expect(lstatSync(cacheFifo).isFIFO()).toBe(true);

    await driver.stop();
    driver = newDriver();
    await driver.start();
    for (const fifo of [cacheFifo, path.join(publicA, 'fifo.txt')])
      expect(existsSync(fifo), fifo).toBe(false);

    const caddyPid = Number(readFileSync(caddyPaths(root).pidFile, 'utf8'));
    // B's home page, from its page cache: the front door's own speed.
    let warm = await curl([b.temporaryUrl]);
    for (let i = 0; i < 10 && !/X-Berth-Cache: HIT/i.test(warm.headers); i++)
      warm = await curl([b.temporaryUrl]);
    const paths = Array.from({ length: 2000 }, (_, i) => (i % 20 === 0 ? '/fifo.txt' : '/'));
    let threadsMax = threadsOf(caddyPid);
    const bTimes: number[] = [];
    const bSlow: string[] = [];
    let running = true;
    const watch = (async () => {
      while (running) {
        threadsMax = Math.max(threadsMax, threadsOf(caddyPid));
        const started = performance.now();
        const answer = await request(b.temporaryUrl, '/', 5000);
        const took = performance.now() - started;
        bTimes.push(answer.status === 200 ? took : Number.POSITIVE_INFINITY);
        if (took > 300) bSlow.push(`${took.toFixed(0)} ms ${answer.status} ${answer.cache ?? '-'}`);
        await sleep(100);
      }
    })();
    const started = performance.now();
    const answers = await barrage(a.temporaryUrl, paths, 32);
    running = false;
    await watch;
    threadsMax = Math.max(threadsMax, threadsOf(caddyPid));
    const counts = new Map<string, number>();
    const cached = new Map<string, number>();
    for (const [i, answer] of answers.entries()) {
      const key = `${paths[i]} ${answer.status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      cached.set(answer.cache ?? '-', (cached.get(answer.cache ?? '-') ?? 0) + 1);
    }
    console.log(
      `2,000 requests for former FIFOs in ${((performance.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(Object.fromEntries(counts))}; page cache ${JSON.stringify(Object.fromEntries(cached))}; Caddy threads at most ${threadsMax}; site B ${bTimes.length} probes, slowest ${Math.max(...bTimes).toFixed(0)} ms (over 300 ms: ${bSlow.join(', ') || 'none'})`,
    );
    expect(Object.fromEntries(counts)).toEqual({ '/ 200': 1900, '/fifo.txt 404': 100 });
    expect(threadsMax).toBeLessThan(50);
    expect(bTimes.length).toBeGreaterThan(0);
    expect(Math.max(...bTimes)).toBeLessThan(1000);
  });

  it("Caddy's own log rolls (at 10 MB, 5 kept) and its output file, where crash dumps land, is capped and moved aside at a start", async () => {
    const pid = Number(readFileSync(caddyPaths(root).pidFile, 'utf8'));
    // RLIMIT_FSIZE: no file Caddy writes grows past it (Go ignores SIGXFSZ: the write fails, Caddy lives).
    const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
    expect(limits).toMatch(
      new RegExp(`^Max file size\\s+${CADDY_OUTPUT_MAX_BYTES}\\s+${CADDY_OUTPUT_MAX_BYTES}\\s+bytes`, 'm'),
    );
    const capped = path.join(work, 'capped.txt');
    const listed = await runCommand('/bin/sh', [
      '-c',
      `/usr/bin/prlimit --fsize=100 /usr/bin/caddy list-modules > ${capped}`,
    ]);
    expect({ code: listed.code, size: statSync(capped).size }).toEqual({ code: 0, size: 100 });
    // Caddy's JSON log is its own rolled file, not that output.
    const config = JSON.parse(
      (await caddyAdmin(caddyPaths(root).adminSocket, 'GET', '/config/logging')).body,
    );
    expect(config.logs.default.writer).toMatchObject({
      output: 'file',
      filename: caddyPaths(root).jsonLog,
      roll_size_mb: 10,
      roll_keep: 5,
    });
    expect(existsSync(caddyPaths(root).jsonLog)).toBe(true);
    // A large output file (a crash's stack dump) is moved to caddy.log.1 when Caddy next starts.
    await driver.stop();
    await writeFile(caddyPaths(root).logFile, Buffer.alloc(2 * 1024 * 1024, 'x'));
    driver = newDriver();
    await driver.start();
    expect(statSync(`${caddyPaths(root).logFile}.1`).size).toBe(2 * 1024 * 1024);
    expect(statSync(caddyPaths(root).logFile).size).toBeLessThan(64 * 1024);
    expect((await curl([b.temporaryUrl])).status).toBe(200);
  });

  it('site B is untouched by all of the above', async () => {
    const page = await curl([b.temporaryUrl]);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<title>${specB.title}</title>`);
    await expect(readFile(sitePaths(root, specB.id).wpConfig, 'utf8')).resolves.toContain('DB_NAME');
  });
});

/** A site's PHP asking for a FIFO every way it knows, answering what it found (JSON). */
const FIFO_PROBE = `<?php
$r = ['functions' => []];
foreach (['posix_mkfifo', 'posix_mknod', 'posix_kill', 'posix_setsid', 'posix_uname', 'posix_getpwuid'] as $f) {
  $r['functions'][$f] = function_exists($f);
}
if (function_exists('posix_mkfifo')) { @posix_mkfifo('/public/fifo.txt', 0644); }
try {
  FFI::cdef('int mkfifo(const char *path, unsigned int mode);', 'libc.so.6')->mkfifo('/public/fifo.txt', 0644);
  $r['ffi'] = 'called';
} catch (Throwable $e) {
  $r['ffi'] = get_class($e);
}
clearstatcache();
$r['made'] = file_exists('/public/fifo.txt');
echo json_encode($r);
`;

const cmdlineOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};
/** /proc/<pid>/status "Seccomp:": 0 none, 2 a filter. */
const seccompOf = (pid: number): number =>
  Number(/^Seccomp:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? -1);
const threadsOf = (pid: number): number =>
  Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

/** Runs a shell script as `user` on the host (outside any sandbox); its exit code. */
function runAs(user: { uid: number; gid: number }, script: string): Promise<number | null> {
  const child = spawn('/bin/sh', ['-c', script], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return new Promise((resolve) => child.on('close', resolve));
}

/** One GET through the front door (Host from `url`), its status; 0 after `timeoutMs` or on an error. */
function request(
  url: string,
  target: string,
  timeoutMs: number,
  agent?: http.Agent,
): Promise<{ status: number; cache?: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const outgoing = http.get(
      {
        host: '127.0.0.1',
        port,
        path: target,
        headers: { Host: `${hostname}:${port}` },
        agent: agent ?? false,
        timeout: timeoutMs,
      },
      (response) => {
        response.resume();
        const cache = response.headers['x-berth-cache'];
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, cache: typeof cache === 'string' ? cache : undefined }),
        );
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', () => resolve({ status: 0 }));
  });
}

/** GETs every path through the front door, `concurrency` at a time; the statuses in order. */
async function barrage(
  url: string,
  paths: string[],
  concurrency: number,
): Promise<{ status: number; cache?: string }[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses: { status: number; cache?: string }[] = paths.map(() => ({ status: 0 }));
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < paths.length) {
          const i = next++;
          statuses[i] = await request(url, paths[i] ?? '/', 30_000, agent);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return statuses;
}

/**
 * A raw SFTP v3 session over ssh2's client (no client-side buffers sized by the request): what a
 * hostile client sends, byte for byte.
 */
async function rawSftp(access: DeployedSite) {
  const client = new ssh2.Client();
  await new Promise<void>((resolve, reject) => {
    client.on('ready', resolve).on('error', reject);
    client.connect({
      host: '127.0.0.1',
      port: access.sftp.port,
      username: access.sftp.user,
      password: access.sftp.password,
      readyTimeout: 10_000,
    });
  });
  const channel = await new Promise<ssh2.ClientChannel>((resolve, reject) =>
    client.subsys('sftp', (error: Error | undefined, stream: ssh2.ClientChannel) =>
      error ? reject(error) : resolve(stream),
    ),
  );
  let buffered = Buffer.alloc(0);
  const waiting: ((packet: Buffer) => void)[] = [];
  channel.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
      const length = buffered.readUInt32BE(0);
      const packet = buffered.subarray(4, 4 + length);
      buffered = buffered.subarray(4 + length);
      waiting.shift()?.(packet);
    }
  });
  const str = (value: string | Buffer) => {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const u32 = (value: number) => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(value);
    return bytes;
  };
  const u64 = (value: number) => {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64BE(BigInt(value));
    return bytes;
  };
  let nextId = 1;
  const send = (type: number, ...parts: Buffer[]): Promise<Buffer> => {
    const body = Buffer.concat([Buffer.from([type]), ...parts]);
    const answer = new Promise<Buffer>((resolve) => waiting.push(resolve));
    channel.write(Buffer.concat([u32(body.length), body]));
    return answer;
  };
  await send(1, u32(3)); // INIT → VERSION
  return {
    async open(file: string): Promise<Buffer> {
      const answer = await send(3, u32(nextId++), str(file), u32(1), u32(0));
      if (answer[0] !== 102) throw new Error(`OPEN answered ${answer[0]}`);
      return answer.subarray(9, 9 + answer.readUInt32BE(5));
    },
    async read(handle: Buffer, offset: number, length: number) {
      const answer = await send(5, u32(nextId++), str(handle), u64(offset), u32(length));
      return { type: answer[0], length: answer.length };
    },
    async setSize(file: string, size: number) {
      return send(9, u32(nextId++), str(file), u32(1), u64(size));
    },
    close() {
      channel.end();
      client.end();
    },
  };
}
