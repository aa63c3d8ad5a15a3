import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DatabaseCredentials,
  DatabaseSpec,
  SftpCredentials,
  SiteSpec,
} from '../../src/provisioning/engine.ts';
import { mariadbCli, tenantCli } from './db-clients.ts';
import { curl, sftpBatch } from './site-clients.ts';
import type { InspectedService, SwarmHarness } from './swarm-harness.ts';
import type { testArchives } from './test-archives.ts';

/**
 * A hostile tenant on the swarm driver, replaying each finding of the hostile review as a customer would:
 * with its own database login, its site's PHP (and code run as its site's user), its n8n. Run by
 * swarm-driver.test.ts on its swarm.
 */

type Archives = Awaited<ReturnType<typeof testArchives>>;
const service = (id: string) => `berth-${id.replaceAll('-', '')}`;
const SMALL = { memoryMb: 256, cpus: 0.25 };

/** Whether `host:port` accepts a TCP connection from inside a container (bash's /dev/tcp, 3 s). */
const BASH_PROBE = (host: string, port: number) => [
  'sh',
  '-c',
  `timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>/dev/null && echo open || echo closed`,
];

/** The same with n8n's own Node (its image has no bash worth trusting to be there). */
const NODE_PROBE = (host: string, port: number) => [
  '/opt/node/node',
  '-e',
  `const s = require('net').connect({ host: ${JSON.stringify(host)}, port: ${port} });
   const done = (w) => { console.log(w); process.exit(0); };
   s.setTimeout(3000, () => done('closed'));
   s.on('connect', () => done('open'));
   s.on('error', () => done('closed'));`,
];

/** An SFTP SETSTAT of `file` (created empty first) to `size` bytes with ssh2's client: refused or done. */
async function setSize(login: SftpCredentials, file: string, size: number): Promise<'done' | 'refused'> {
  const client = new ssh2.Client();
  await new Promise<void>((resolve, reject) => {
    client.on('ready', resolve).on('error', reject);
    client.connect({ host: login.host, port: login.port, username: login.user, password: login.password });
  });
  try {
    const sftp = await new Promise<ssh2.SFTPWrapper>((resolve, reject) =>
      client.sftp((error, wrapper) => (error ? reject(error) : resolve(wrapper))),
    );
    return await new Promise((resolve) =>
      sftp.setstat(file, { size }, (error) => resolve(error ? 'refused' : 'done')),
    );
  } finally {
    client.end();
  }
}

export function describeSwarmTenantAttacks(harness: () => SwarmHarness, archives: () => Archives) {
  const h = () => harness();

  describe('a hostile PostgreSQL tenant on swarm', () => {
    it('stays no superuser through a backup (count(*) + search_path) and a restore (CHECK + RESET ROLE)', async () => {
      const id = randomUUID();
      const deployed = await h()
        .driver.engine('postgresql')
        .deploy({ id, region: 'eu-west-1', resources: SMALL });
      const db = deployed.database as DatabaseCredentials;
      const spec: DatabaseSpec = { id, region: 'eu-west-1', resources: SMALL, password: db.password };
      const sql = (query: string) => tenantCli('postgresql', db, query);
      const superuser = async () =>
        (await sql('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).stdout;
      // The traps: an aggregate named count(*) ahead of the catalog's on the database's search_path, whose
      // step makes its caller's session make the tenant superuser; and a CHECK whose function drops any
      // role the loading session took (RESET ROLE) and does the same while COPY loads the table.
      const trap = await sql(`
CREATE FUNCTION public.escalate(bigint) RETURNS bigint LANGUAGE plpgsql AS $f$
BEGIN
  BEGIN EXECUTE 'ALTER ROLE ${db.user} SUPERUSER'; EXCEPTION WHEN others THEN NULL; END;
  RETURN $1 + 1;
END $f$;
CREATE AGGREGATE public.count(*) (SFUNC = public.escalate, STYPE = bigint, INITCOND = 0);
ALTER DATABASE ${db.database} SET search_path = public, pg_catalog;
CREATE FUNCTION public.reset_and_escalate(integer) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $f$
BEGIN
  BEGIN RESET ROLE; EXECUTE 'ALTER ROLE ${db.user} SUPERUSER'; EXCEPTION WHEN others THEN NULL; END;
  RETURN true;
END $f$;
CREATE TABLE trap (x integer CHECK (public.reset_and_escalate(x)));
INSERT INTO trap VALUES (1), (2);`);
      expect(trap.ok, trap.stderr).toBe(true);
      expect(await superuser()).toBe('f');

      const backup = await archives().dump(h().driver.engine('postgresql').backups, spec, `pg-trap-${id}`);
      expect(backup.facts).toEqual({ tables: 1 });
      expect(await superuser()).toBe('f');

      // The traps are real: superuser sessions as Berth's backups opened them before (a count with the
      // database's search_path; a load under SET ROLE) make the tenant superuser. It takes it back itself.
      const { node } = await h().inspect('euw1-m', service(id));
      const container = await h().containerOf(node, service(id));
      const asPostgres = (...args: string[]) =>
        h().docker(
          node,
          'exec',
          '-u',
          'postgres',
          container,
          'psql',
          '-X',
          '-q',
          '-h',
          '/run/postgresql',
          '-d',
          db.database,
          ...args,
        );
      await asPostgres('-c', 'SELECT COUNT(*) FROM information_schema.tables');
      expect(await superuser()).toBe('t');
      await sql(`ALTER ROLE ${db.user} NOSUPERUSER`);
      await asPostgres('-c', `SET ROLE "${db.user}"`, '-c', 'INSERT INTO trap VALUES (3)');
      expect(await superuser()).toBe('t');
      await sql(`ALTER ROLE ${db.user} NOSUPERUSER; DELETE FROM trap WHERE x = 3`);
      expect(await superuser()).toBe('f');

      await sql('DELETE FROM trap');
      await archives().restore(h().driver.engine('postgresql').backups, spec, backup);
      expect((await sql('SELECT count(x) FROM trap')).stdout).toBe('2');
      expect(await superuser()).toBe('f');
      await h().driver.engine('postgresql').delete(id);
    }, 240_000);
  });

  describe('a hostile WordPress tenant on swarm', () => {
    const id = randomUUID();
    const neighbour = randomUUID();
    const site: SiteSpec = {
      id,
      region: 'us-east-1',
      resources: SMALL,
      title: 'Hostile',
      adminUser: 'mallory',
      adminEmail: 'mallory@example.com',
      adminPassword: 'Mallory-pass-2026',
      phpVersion: '8.2',
      databasePassword: 'Mallory-db-pass-2026',
    };
    let node = '';
    let app = '';
    let sftp: SftpCredentials | undefined;
    /** Runs a command in the site's container as its user (www-data): code the tenant may run. */
    const asSite = (...cmd: string[]) => h().docker(node, 'exec', '-u', 'www-data', app, ...cmd);

    beforeAll(async () => {
      sftp = (
        await h()
          .driver.engine('wordpress')
          .deploy({ ...site, sftpPassword: 'Mallory-sftp-2026' })
      ).sftp;
      await h()
        .driver.engine('wordpress')
        .deploy({ ...site, id: neighbour, title: 'Neighbour' });
      ({ node } = await h().inspect('use1-m', service(id)));
      app = await h().containerOf(node, service(id));
    }, 300_000);

    afterAll(async () => {
      for (const instance of [id, neighbour])
        await h()
          .driver.engine('wordpress')
          .delete(instance)
          .catch(() => {});
    }, 120_000);

    it('reaches its own files over SFTP, and nothing else: no other file, no sparse monster, no other login', async () => {
      if (!sftp) throw new Error('the deploy gave no SFTP login');
      expect(sftp).toMatchObject({ host: '127.0.0.1', user: id.replaceAll('-', '').slice(0, 12) });
      const work = await mkdtemp(path.join(tmpdir(), 'berth-swarm-sftp-'));
      try {
        await writeFile(path.join(work, 'hello.txt'), 'hello from sftp\n');
        const session = await sftpBatch(
          sftp,
          [
            'pwd',
            'mkdir wp-content/uploads',
            'put hello.txt wp-content/uploads/hello.txt',
            'get wp-content/uploads/hello.txt back.txt',
            'ls wp-content/themes',
          ],
          work,
        );
        expect(session.code, session.stderr).toBe(0);
        expect(session.stdout).toContain('/var/www/wordpress');
        expect(await readFile(path.join(work, 'back.txt'), 'utf8')).toBe('hello from sftp\n');
        // The site serves what was uploaded: the files are the site's own.
        expect(await asSite('cat', '/var/www/wordpress/wp-content/uploads/hello.txt')).toBe(
          'hello from sftp',
        );
        // Nothing outside wp-content is writable (WordPress core, the system), nothing larger than the disk.
        const hostile = await sftpBatch(
          sftp,
          [
            '-put hello.txt wp-config.php',
            '-put hello.txt wp-content/../index.php',
            '-put hello.txt /etc/hello.txt',
            '-ln -s /etc/passwd passwd-link',
          ],
          work,
        );
        expect(hostile.stderr).toMatch(/(Permission denied|Failure|Read-only)/i);
        expect(await asSite('sh', '-c', 'ls /etc/hello.txt 2>&1 || true')).toMatch(/No such file/);
        // A size past the disk is refused (a SETSTAT to 1 TiB, the sparse monster), not made.
        expect((await sftpBatch(sftp, ['put hello.txt wp-content/big.bin'], work)).code).toBe(0);
        expect(await setSize(sftp, 'wp-content/big.bin', 2 ** 40)).toBe('refused');
        expect(await asSite('stat', '-c', '%s', '/var/www/wordpress/wp-content/big.bin')).toBe('16');
        expect(await setSize(sftp, 'wp-content/big.bin', 4)).toBe('done');
        // Another site's login with this password, and a wrong password, are refused.
        const neighbourSlug = neighbour.replaceAll('-', '').slice(0, 12);
        expect((await sftpBatch({ ...sftp, user: neighbourSlug }, ['pwd'], work)).code).not.toBe(0);
        expect((await sftpBatch({ ...sftp, password: 'wrong-password-2026' }, ['pwd'], work)).code).not.toBe(
          0,
        );
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }, 180_000);

    it('fills only its own disk, of the size it was sold, and sees that size', async () => {
      const size = Number(
        await asSite('sh', '-c', 'df -B1 --output=size /var/www/wordpress/wp-content | tail -n 1'),
      );
      // At least what was sold (ext4's own takes some of the disk: it is made that much larger).
      expect(size).toBeGreaterThanOrEqual(h().disks.wordpress * 1024 * 1024);
      expect(size).toBeLessThan(h().disks.wordpress * 1.2 * 1024 * 1024);
      const fill = await asSite(
        'sh',
        '-c',
        'mkdir -p /var/www/wordpress/wp-content/uploads; dd if=/dev/zero of=/var/www/wordpress/wp-content/uploads/fill bs=1M count=2000 2>&1; echo exit=$?',
      );
      expect(fill).toMatch(/No space left on device/);
      expect(fill).toMatch(/exit=1/);
      const usage = await h().driver.engine('wordpress').storage?.usage(id);
      expect(usage?.limitBytes).toBe(size);
      expect(usage?.usedBytes).toBeGreaterThan(size * 0.95);
      await asSite('rm', '/var/www/wordpress/wp-content/uploads/fill');
      expect((await h().driver.engine('wordpress').storage?.usage(id))?.usedBytes).toBeLessThan(size / 2);
    }, 120_000);

    it('cannot sink the server or stall the jobs through its backup (a sparse 8 GiB file, tar stopped)', async () => {
      await asSite(
        'php',
        '-r',
        'mkdir("/var/www/wordpress/wp-content/uploads", 0755, true); ftruncate(fopen("/var/www/wordpress/wp-content/uploads/huge.bin", "w"), 8 * 1024 ** 3);',
      );
      // Code of the tenant's that stops every tar it can see, and notes each one it stopped.
      await h().docker(
        node,
        'exec',
        '-d',
        '-u',
        'www-data',
        app,
        'sh',
        '-c',
        'while :; do for p in /proc/[0-9]*; do if [ "$(cat $p/comm 2>/dev/null)" = tar ]; then n=$(basename $p); kill -STOP $n && { grep -qx $n /tmp/stopped || echo $n >>/tmp/stopped; }; fi; done; sleep 0.1; done',
      );
      // The loop works: a slow tar of the site's own is stopped (then killed: a stopped process hears SIGKILL).
      await asSite(
        'sh',
        '-c',
        'touch /tmp/stopped; tar -cf /dev/null --checkpoint=1 --checkpoint-action=sleep=1 /var/www/wordpress 2>/dev/null & sleep 2; kill -9 $! 2>/dev/null; true',
      );
      const stoppedBefore = await asSite('cat', '/tmp/stopped');
      expect(stoppedBefore.split('\n').filter(Boolean).length).toBeGreaterThan(0);

      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 100);
      const other = randomUUID();
      try {
        // Another customer's deploy while the backup runs.
        const [backup, deployed] = await Promise.all([
          archives().dump(h().driver.engine('wordpress').backups, site, `sparse-${id}`),
          h().driver.engine('mysql').deploy({ id: other, region: 'us-east-1', resources: SMALL }),
        ]);
        expect(backup.parts.map((part) => part.name)).toEqual(['db.sql.gz', 'files.tar.gz']);
        // The hole is not stored: the archive is small.
        expect(backup.parts[1]?.size).toBeLessThan(64 * 1024 * 1024);
        expect((await mariadbCli(deployed.database as DatabaseCredentials, 'SELECT 1')).stdout).toBe('1');
      } finally {
        clearInterval(sampler);
        await h().driver.engine('mysql').delete(other);
      }
      expect(peak - before).toBeLessThan(400 * 1024 * 1024);
      // The tar of the backup ran where the tenant's code does not see it.
      expect(await asSite('cat', '/tmp/stopped')).toBe(stoppedBefore);
      await asSite('rm', '/var/www/wordpress/wp-content/uploads/huge.bin');
    }, 300_000);

    it('runs WP-Cron with the web server’s disabled functions, and a fork bomb stops at its process limit', async () => {
      const disabled = (await asSite('php', '-r', 'echo ini_get("disable_functions");')).split(',');
      expect(disabled).toEqual(expect.arrayContaining(['exec', 'proc_open', 'pcntl_fork', 'posix_kill']));
      const fork = await asSite('sh', '-c', 'php -r "pcntl_fork();" 2>&1; true');
      expect(fork).toMatch(/undefined function pcntl_fork/);
      // Code that got past PHP anyway (run as the site's user in its container): a fork bomb.
      await h().docker(node, 'exec', '-d', '-u', 'www-data', app, 'sh', '-c', 'b() { b | b & }; b');
      const pidsDir = `/sys/fs/cgroup/pids/docker/${await h().docker(node, 'inspect', app, '--format', '{{.Id}}')}`;
      // The kernel refuses the bomb's forks at the limit: pids.events counts each refusal.
      const refusals = async () =>
        Number(/^max (\d+)/m.exec(await readFile(`${pidsDir}/pids.events`, 'utf8'))?.[1] ?? 0);
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (await refusals()) === 0)
        await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await readFile(`${pidsDir}/pids.max`, 'utf8')).trim()).toBe('256');
      expect(await refusals()).toBeGreaterThan(0);
      // Processes docker exec attaches (a health check, ours) are counted but not refused by
      // cgroup v1, so the count may stand a few over the limit; the bomb's own forks never pass it.
      const current = Number((await readFile(`${pidsDir}/pids.current`, 'utf8')).trim());
      expect(current).toBeGreaterThan(200);
      expect(current).toBeLessThan(256 + 32);
      // The node's other tenants answer meanwhile.
      const front = h().swarm.nodes.find((n) => n.name === 'use1-m')?.address ?? '';
      const slug = neighbour.replaceAll('-', '').slice(0, 12);
      const page = await curl([
        '--resolve',
        `${slug}.us-east-1.sites.test:80:${front}`,
        `http://${slug}.us-east-1.sites.test/`,
      ]);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Neighbour');
      // The bombed site goes (its processes with it).
      await h().driver.engine('wordpress').delete(id);
    }, 180_000);
  });

  describe('tenants’ network on swarm', () => {
    const n8nId = randomUUID();
    // Three on a region of two nodes: two of them share a node (and its bridge).
    const dbIds = [randomUUID(), randomUUID(), randomUUID()];
    const dbs: DatabaseCredentials[] = [];
    let berth: Server;
    let berthPort = 0;

    beforeAll(async () => {
      // Berth itself, as the nodes reach it.
      berth = createServer((socket) => socket.end('berth\n'));
      await new Promise<void>((resolve) => berth.listen(0, '0.0.0.0', resolve));
      berthPort = (berth.address() as { port: number }).port;
      for (const id of dbIds) {
        const deployed = await h()
          .driver.engine('mysql')
          .deploy({ id, region: 'us-east-1', resources: SMALL });
        dbs.push(deployed.database as DatabaseCredentials);
      }
      await h()
        .driver.engine('n8n')
        .deploy({
          id: n8nId,
          region: 'us-east-1',
          resources: { memoryMb: 1024, cpus: 1 },
          ownerEmail: 'owner@example.com',
          ownerPassword: 'Owner2026pass',
          encryptionKey: 'a-swarm-egress-test-key-0123456',
        });
    }, 600_000);

    afterAll(async () => {
      berth?.close();
      await h()
        .driver.engine('n8n')
        .delete(n8nId)
        .catch(() => {});
      for (const id of dbIds)
        await h()
          .driver.engine('mysql')
          .delete(id)
          .catch(() => {});
    }, 120_000);

    const targets = () => {
      const [, theirs] = dbs;
      const nodes = h().swarm.nodes.filter((n) => n.region === 'us-east-1');
      return [
        ...nodes.flatMap((n) => [
          { what: `node ${n.name} swarm management`, host: n.address, port: 2377 },
          { what: `node ${n.name} gossip`, host: n.address, port: 7946 },
        ]),
        { what: 'Berth', host: h().hostAddress, port: berthPort },
        { what: "another tenant's database", host: theirs?.host ?? '', port: theirs?.port ?? 0 },
      ];
    };

    it('n8n reaches neither the nodes, Berth, the swarm’s ports nor another tenant’s database', async () => {
      const { node } = await h().inspect('use1-m', service(n8nId));
      const container = await h().containerOf(node, service(n8nId));
      const probe = (host: string, port: number) =>
        h().docker(node, 'exec', '-u', 'n8n', container, ...NODE_PROBE(host, port));
      // The probe works: n8n's own front door, on its network.
      expect(await probe('berth-front-door', 80)).toBe('open');
      for (const target of targets()) {
        expect(`${target.what}: ${await probe(target.host, target.port)}`).toBe(`${target.what}: closed`);
      }
    }, 120_000);

    it('a database server reaches neither the nodes, Berth, the swarm’s ports nor another tenant’s database', async () => {
      const [mine] = dbIds;
      const { node } = await h().inspect('use1-m', service(mine ?? ''));
      const container = await h().containerOf(node, service(mine ?? ''));
      const probe = (host: string, port: number) =>
        h().docker(node, 'exec', '-u', 'mysql', container, ...BASH_PROBE(host, port));
      expect(await probe('127.0.0.1', 3306)).toBe('open');
      for (const target of targets()) {
        expect(`${target.what}: ${await probe(target.host, target.port)}`).toBe(`${target.what}: closed`);
      }
      // Nor another database's container on the same node (the same bridge) by its own address.
      const placed = await Promise.all(
        dbIds.map(async (id) => {
          const { node: on } = await h().inspect('use1-m', service(id));
          return { on, container: await h().containerOf(on, service(id)) };
        }),
      );
      const [a, b] = placed.filter((p) => placed.filter((q) => q.on === p.on).length > 1);
      if (!a || !b) throw new Error('no two databases share a node');
      const bIp = await h().docker(
        b.on,
        'inspect',
        b.container,
        '--format',
        '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
      );
      expect(bIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      const fromA = (host: string, port: number) =>
        h().docker(a.on, 'exec', '-u', 'mysql', a.container, ...BASH_PROBE(host, port));
      expect(await fromA('127.0.0.1', 3306)).toBe('open');
      expect(await fromA(bIp, 3306)).toBe('closed');
    }, 120_000);

    it('a stalled dump (the tenant holds a table locked) fails with the reason and frees the instance', async () => {
      const [id] = dbIds;
      const db = dbs[0] as DatabaseCredentials;
      await mariadbCli(db, 'CREATE TABLE held (x INT); INSERT INTO held VALUES (1)');
      // The tenant's own session holds the table for ten minutes.
      const holder: ChildProcess = spawn(
        '/usr/bin/mariadb',
        [
          '--no-defaults',
          '--protocol=TCP',
          `--host=${db.host}`,
          `--port=${db.port}`,
          `--user=${db.user}`,
          db.database,
          '-e',
          'LOCK TABLES held WRITE; SELECT SLEEP(600);',
        ],
        { env: { MYSQL_PWD: db.password }, stdio: 'ignore' },
      );
      try {
        const spec: DatabaseSpec = {
          id: id ?? '',
          region: 'us-east-1',
          resources: SMALL,
          password: db.password,
        };
        await expect(archives().dump(h().driver.engine('mysql').backups, spec, `held-${id}`)).rejects.toThrow(
          `The database dump made no progress for ${h().backupStallMs / 1000} s and the transfer was stopped`,
        );
        // The job's lock on the instance is free again: the next operation runs.
        await h()
          .driver.engine('mysql')
          .suspend(id ?? '');
        await h()
          .driver.engine('mysql')
          .resume(id ?? '');
        expect((await mariadbCli(db, 'SELECT x FROM held')).stdout).toBe('1');
      } finally {
        holder.kill('SIGKILL');
      }
    }, 180_000);
  });

  describe('every service on swarm', () => {
    it('runs with a process limit, no capability, a read-only root, no-new-privileges and a sized volume', async () => {
      const id = randomUUID();
      await h().driver.engine('postgresql').deploy({ id, region: 'us-east-1', resources: SMALL });
      const site = randomUUID();
      await h().driver.engine('wordpress').deploy({
        id: site,
        region: 'us-east-1',
        resources: SMALL,
        title: 'Inspected',
        adminUser: 'ines',
        adminEmail: 'ines@example.com',
        adminPassword: 'Ines-pass-2026',
        phpVersion: '8.2',
      });
      const kinds: [string, number, string][] = [
        [service(id), 256, '/var/lib/postgresql/data'],
        [service(site), 256, '/var/www/wordpress/wp-content'],
        [`${service(site)}-db`, 512, '/var/lib/mysql'],
      ];
      for (const [name, pids, dataPath] of kinds) {
        const { spec, node } = await h().inspect('use1-m', name);
        const container: InspectedService['Spec']['TaskTemplate']['ContainerSpec'] =
          spec.Spec.TaskTemplate.ContainerSpec;
        expect(spec.Spec.TaskTemplate.Resources.Limits.Pids, name).toBe(pids);
        expect(container.CapabilityDrop, name).toEqual(['ALL']);
        expect(container.CapabilityAdd ?? [], name).toEqual([]);
        expect(container.ReadOnly, name).toBe(true);
        const volume = container.Mounts?.find((m) => m.Target === dataPath);
        expect(volume?.VolumeOptions?.DriverConfig?.Options, name).toMatchObject({
          type: 'none',
          o: 'bind',
          device: expect.stringMatching(/\/fs\/data$/),
        });
        const task = await h().containerOf(node, name);
        expect(await h().docker(node, 'exec', task, 'grep', 'NoNewPrivs', '/proc/1/status'), name).toMatch(
          /NoNewPrivs:\s+1/,
        );
      }
      await h().driver.engine('postgresql').delete(id);
      await h().driver.engine('wordpress').delete(site);
    }, 300_000);
  });
}
