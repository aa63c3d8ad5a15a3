import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mariadbCli, tenantCli } from '../../../test/provisioning/db-clients.ts';
import { required } from '../../../test/provisioning/engines.ts';
import { n8nSession, webhookWorkflow } from '../../../test/provisioning/n8n-client.ts';
import { curl, runCommand } from '../../../test/provisioning/site-clients.ts';
import { type SwarmHarness, startSwarmHarness } from '../../../test/provisioning/swarm-harness.ts';
import { describeSwarmTenantAttacks } from '../../../test/provisioning/swarm-tenant-attacks.ts';
import { testArchives } from '../../../test/provisioning/test-archives.ts';
import { DEFAULT_RUNTIMES_DIR, installedN8nRuntime, N8N_VERSION } from '../apps/n8n/n8n-runtime.ts';
import { DEFAULT_DISK_OVERCOMMIT } from '../disk-policy.ts';
import type { InstanceStatus } from '../driver.ts';
import type { DatabaseCredentials } from '../engine.ts';
import { journalMbOf } from '../ext4.ts';
import { NODE_DOWN_MESSAGE } from './instance-status.ts';
import { addLocalNode, killLocalNode, restartLocalNode } from './local-swarm.ts';
import { createSwarmDriver } from './swarm-driver.ts';

/**
 * The swarm driver against a real local swarm of two regions (us-east-1: a manager and a worker;
 * eu-west-1: a manager), every node a dockerd in its own network namespace. Customers' real clients
 * connect: mariadb, psql, curl through the region's front door.
 */

let h: SwarmHarness;
/** The platform's backup storage (a folder, encrypted, checked), as the backup jobs use it. */
let archives: Awaited<ReturnType<typeof testArchives>>;
const statuses: InstanceStatus[] = [];
let unwatch: () => void = () => {};

beforeAll(async () => {
  h = await startSwarmHarness((line) => console.log(`[swarm] ${line}`));
  archives = await testArchives();
  unwatch = h.driver.live.watch((status) => statuses.push(status));
}, 900_000);

afterAll(async () => {
  unwatch();
  await h?.stop();
}, 120_000);

const SIZE = { memoryMb: 384, cpus: 0.5 };
const MIB = 1024 * 1024;

const inspect = (manager: string, service: string) => h.inspect(manager, service);
const containerOf = (node: string, service: string) => h.containerOf(node, service);

async function waitForStatus(id: string, predicate: (s: InstanceStatus) => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = statuses.find((s) => s.id === id && predicate(s));
    if (found) return found;
    if (Date.now() > deadline) {
      throw new Error(
        `no such status of ${id}; seen: ${JSON.stringify(statuses.filter((s) => s.id === id))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('regions and capacity', () => {
  it('refuses a region without a swarm with a clear message, and lists the regions that exist', async () => {
    await expect(
      h.driver.engine('mysql').deploy({ id: randomUUID(), region: 'ap-south-1', resources: SIZE }),
    ).rejects.toThrow(
      /AP South \(Mumbai\) is not available on this platform: it has no servers there \(available: US East \(N\. Virginia\), EU West \(Ireland\)\)/,
    );
    const regions = await h.driver.regions();
    expect(regions.find((r) => r.id === 'us-east-1')).toEqual({ id: 'us-east-1', available: true });
    expect(regions.find((r) => r.id === 'eu-west-1')).toEqual({ id: 'eu-west-1', available: true });
    expect(regions.find((r) => r.id === 'ap-south-1')).toMatchObject({
      available: false,
      reason: 'No servers in this region yet',
    });
  });

  it('ends a deploy that fits no node in an error with the reason, leaving nothing behind', async () => {
    const id = randomUUID();
    await expect(
      h.driver
        .engine('postgresql')
        .deploy({ id, region: 'eu-west-1', resources: { memoryMb: 65536, cpus: 1 } }),
    ).rejects.toThrow(
      /No server of EU West \(Ireland\) has 64 GB of memory and 1 vCPU free for this instance \(the most any has free is [\d.]+ GB/,
    );
    expect(await h.docker('euw1-m', 'service', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
      '',
    );
    expect(await h.docker('euw1-m', 'secret', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe('');
  });

  it('refuses a deploy no server may promise its disk to, with the customer’s message, leaving nothing behind', async () => {
    const euw1 = (await h.driver.usage.capacity()).places?.find((place) => place.region === 'eu-west-1');
    const storage = euw1?.storage;
    if (!euw1 || !storage) throw new Error('eu-west-1 shows no disk figures');
    // What the node's disk promises and takes, as the agent counts it (each volume's image).
    expect(storage.sizeBytes).toBe(euw1.diskBytes);
    expect(storage.overcommit).toBe(DEFAULT_DISK_OVERCOMMIT);
    expect(storage.promisedBytes).toBeGreaterThanOrEqual(storage.tenantUsedBytes);
    // The same swarm with all but 100 MiB of the node's free space kept in reserve (DISK_RESERVE_MB).
    const logs: string[] = [];
    const strict = createSwarmDriver({
      regions: { 'eu-west-1': { endpoint: h.swarm.regions['eu-west-1'] ?? '' } },
      baseDomain: 'sites.test',
      backupsDir: h.backupsDir,
      disks: h.disks,
      diskPolicy: { reserveMb: Math.floor(euw1.diskFreeBytes / MIB) - 100, overcommit: 1 },
      log: (line) => logs.push(line),
    });
    const id = randomUUID();
    await expect(
      strict.engine('postgresql').deploy({ id, region: 'eu-west-1', resources: SIZE }),
    ).rejects.toThrow(
      'This server has no storage left for a new instance. Please try again later or contact support.',
    );
    // PostgreSQL's 256 MiB and its server's 64, in an image a tenth larger and 12 MiB more.
    expect(logs.join('\n')).toMatch(/takes no new disk: a new 364 MiB disk would bring what is promised to/);
    expect(await h.docker('euw1-m', 'service', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
      '',
    );
    expect(await h.docker('euw1-m', 'volume', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe('');
  });

  it('shows the admin each region with its nodes, their labels and what is reserved', async () => {
    const report = await h.driver.nodes();
    const east = report.find((r) => r.region === 'us-east-1');
    expect(east?.nodes.map((n) => [n.role, n.state, n.labels.region])).toEqual([
      ['manager', 'ready', 'us-east-1'],
      ['worker', 'ready', 'us-east-1'],
    ]);
    expect(east?.nodes[0]?.memoryBytes).toBeGreaterThan(1024 ** 3);
    expect(report.find((r) => r.region === 'eu-west-1')?.nodes).toHaveLength(1);
  });
});

describe('MySQL on swarm', () => {
  const id = randomUUID();
  let credentials: DatabaseCredentials;
  let service: string;

  it('deploys to running in the chosen region with the limits it was sold', async () => {
    const deployed = await h.driver
      .engine('mysql')
      .deploy({ id, region: 'us-east-1', resources: SIZE, owner: 'owner-1' });
    credentials = deployed.database as DatabaseCredentials;
    service = `berth-${id.replaceAll('-', '')}`;
    const { spec, nodeLabels, node } = await inspect('use1-m', service);
    expect(nodeLabels.region).toBe('us-east-1');
    expect(spec.Spec.TaskTemplate.Resources.Limits).toEqual({
      MemoryBytes: 384 * 1024 * 1024,
      NanoCPUs: 5e8,
      Pids: 512,
    });
    expect(spec.Spec.TaskTemplate.Resources.Reservations).toEqual({
      MemoryBytes: 384 * 1024 * 1024,
      NanoCPUs: 5e8,
    });
    expect(spec.Spec.TaskTemplate.Placement.Constraints).toContain('node.labels.region==us-east-1');
    // The password is a secret file, not in the environment or labels.
    expect(JSON.stringify(spec)).not.toContain(credentials.password);
    expect(spec.Spec.TaskTemplate.ContainerSpec.Secrets?.map((s) => s.File.Name)).toEqual(['password']);
    // The credentials name the node's own address and its published port.
    expect(credentials.host).toBe(nodeLabels['berth.public-address']);
    const created = await mariadbCli(
      credentials,
      "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept'); SELECT body FROM notes",
    );
    expect(created.stdout).toBe('kept');
    // Inside the container the kernel holds the limits (cgroup v1 here).
    const container = await containerOf(node, service);
    const limits = await h.docker(
      node,
      'exec',
      container,
      'sh',
      '-c',
      'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null || cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max',
    );
    expect(limits.split(/\s+/)).toEqual(expect.arrayContaining([String(384 * 1024 * 1024)]));
    expect(limits).toMatch(/50000\s+100000/);
  }, 120_000);

  it('kills a process that allocates past the limit, and the driver reports it', async () => {
    const { node } = await inspect('use1-m', service);
    const container = await containerOf(node, service);
    // `tail` keeps its input's last line whole: 600 MB without a newline cannot fit in 384 MB.
    const result = await h
      .docker(
        node,
        'exec',
        container,
        'sh',
        '-c',
        'head -c 600000000 /dev/zero | tail >/dev/null; echo exit=$?',
      )
      .catch((error: Error) => error.message);
    expect(result).toMatch(/exit=137/);
    const notice = await waitForStatus(id, (s) => /more than its 384 MB of memory/.test(s.message ?? ''));
    expect(notice.type).toBe('mysql');
    // The server itself kept running: the data is there.
    expect((await mariadbCli(credentials, 'SELECT body FROM notes')).stdout).toBe('kept');
  }, 120_000);

  it('changes the password (the old one stops working), suspends and resumes with the data', async () => {
    await h.driver.engine('mysql').password?.change(id, 'A-new-password-2026');
    expect((await mariadbCli(credentials, 'SELECT 1')).ok).toBe(false);
    credentials = { ...credentials, password: 'A-new-password-2026' };
    expect((await mariadbCli(credentials, 'SELECT body FROM notes')).stdout).toBe('kept');
    await h.driver.engine('mysql').suspend(id);
    expect((await mariadbCli(credentials, 'SELECT 1')).ok).toBe(false);
    expect((await h.driver.live.status(id))?.state).toBe('stopped');
    await h.driver.engine('mysql').resume(id);
    expect((await mariadbCli(credentials, 'SELECT body FROM notes')).stdout).toBe('kept');
  }, 180_000);

  it('backs up off the node and restores exactly', async () => {
    const mysql = h.driver.engine('mysql');
    const spec = {
      id,
      region: 'us-east-1',
      resources: SIZE,
      owner: 'owner-1',
      password: credentials.password,
    };
    const backup = await archives.dump(mysql.backups, spec, 'mysql-before');
    // The same part as the local driver's: a backup of one box restores on a swarm.
    expect(backup.parts.map((p) => p.name)).toEqual(['dump.sql.gz']);
    expect(backup.parts[0]?.plainSize).toBeGreaterThan(0);
    expect(backup.facts).toEqual({ tables: 1 });
    await mariadbCli(
      credentials,
      "DELETE FROM notes; CREATE TABLE extra (x INT); INSERT INTO notes VALUES ('later')",
    );
    await archives.restore(mysql.backups, spec, backup);
    expect((await mariadbCli(credentials, 'SELECT body FROM notes')).stdout).toBe('kept');
    expect((await mariadbCli(credentials, 'SHOW TABLES')).stdout).toBe('notes');
  }, 120_000);

  it('deletes the service, its volume and its secrets', async () => {
    const { node } = await inspect('use1-m', service);
    await h.driver.engine('mysql').delete(id);
    expect(await h.docker('use1-m', 'service', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
      '',
    );
    expect(await h.docker('use1-m', 'secret', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe('');
    expect(await h.docker(node, 'volume', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe('');
    expect((await mariadbCli(credentials, 'SELECT 1')).ok).toBe(false);
  }, 120_000);
});

describe('PostgreSQL on swarm', () => {
  it('deploys in eu-west-1, psql connects, the limits hold, backup and restore, and delete removes it', async () => {
    const id = randomUUID();
    const { database } = await h.driver
      .engine('postgresql')
      .deploy({ id, region: 'eu-west-1', resources: { memoryMb: 256, cpus: 0.25 } });
    const credentials = database as DatabaseCredentials;
    const { spec, nodeLabels } = await inspect('euw1-m', `berth-${id.replaceAll('-', '')}`);
    expect(nodeLabels.region).toBe('eu-west-1');
    expect(spec.Spec.TaskTemplate.Resources.Limits).toEqual({
      MemoryBytes: 256 * 1024 * 1024,
      NanoCPUs: 2.5e8,
      Pids: 256,
    });
    expect(
      (
        await tenantCli(
          'postgresql',
          credentials,
          'CREATE TABLE t (x int); INSERT INTO t VALUES (42); SELECT x FROM t',
        )
      ).stdout,
    ).toBe('42');
    // Another tenant's database is not even there: one server per instance.
    expect(
      (
        await tenantCli(
          'postgresql',
          credentials,
          "SELECT string_agg(datname, ',') FROM pg_database WHERE NOT datistemplate AND datname <> 'postgres'",
        )
      ).stdout,
    ).toBe(credentials.database);
    // Backup and exact restore, the restored objects the tenant's own.
    const pgSpec = {
      id,
      region: 'eu-west-1',
      resources: { memoryMb: 256, cpus: 0.25 },
      password: credentials.password,
    };
    const backup = await archives.dump(h.driver.engine('postgresql').backups, pgSpec, 'pg');
    await tenantCli('postgresql', credentials, 'DELETE FROM t; CREATE TABLE later (y int)');
    await archives.restore(h.driver.engine('postgresql').backups, pgSpec, backup);
    expect((await tenantCli('postgresql', credentials, 'SELECT x FROM t')).stdout).toBe('42');
    expect(
      (
        await tenantCli(
          'postgresql',
          credentials,
          "SELECT tableowner FROM pg_tables WHERE schemaname = 'public'",
        )
      ).stdout,
    ).toBe(credentials.user);
    await h.driver.engine('postgresql').delete(id);
    expect(await h.docker('euw1-m', 'service', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
      '',
    );
  }, 120_000);
});

describe('the hold on a node’s disk', () => {
  it('holds a volume out of the node’s reserve when its room runs short: the tenant’s writes stop there, and come back when the room does', async () => {
    const id = randomUUID();
    const credentials = (
      await h.driver.engine('postgresql').deploy({ id, region: 'eu-west-1', resources: SIZE })
    ).database as DatabaseCredentials;
    const free = async () =>
      (await h.driver.usage.capacity()).places?.find((place) => place.region === 'eu-west-1')
        ?.diskFreeBytes ?? 0;
    // The driver's own rounds would let go at once (its reserve leaves plenty): paused meanwhile.
    h.driver.holds.stop();
    try {
      // The same swarm with all but 100 MiB of the node's free space kept in reserve.
      const logs: string[] = [];
      const reserveMb = Math.floor((await free()) / MIB) - 100;
      const strict = createSwarmDriver({
        regions: { 'eu-west-1': { endpoint: h.swarm.regions['eu-west-1'] ?? '' } },
        baseDomain: 'sites.test',
        backupsDir: h.backupsDir,
        disks: h.disks,
        diskPolicy: { reserveMb, overcommit: 4 },
        log: (line) => logs.push(line),
      });
      await strict.holds.round('eu-west-1');
      // What the node's volumes take on its disk (the agent's figures): this machine's other files share
      // that disk, so the reserve is checked by what the tenant's volume took, not by what is left.
      const taken = async () =>
        (await h.docker('euw1-m', 'exec', 'berth-agent', 'berth-agent', 'hold-figures'))
          .split('\n')
          .map((line) => line.trim().split(/\s+/))
          .filter(([kind]) => kind === 'image')
          .reduce((sum, [, , , bytes]) => sum + Number(bytes), 0);
      const takenBefore = await taken();
      expect(logs.join('\n')).toMatch(
        /disk hold: the volumes of .* \(eu-west-1\) could take more than the \d+ MiB outside its reserve/,
      );

      // The tenant writes rows of 1 MiB hex digits until PostgreSQL refuses: its disk ends at its allowance.
      await tenantCli('postgresql', credentials, 'CREATE TABLE big (pad text)');
      const fill = await tenantCli(
        'postgresql',
        credentials,
        "DO $$ BEGIN FOR i IN 1..300 LOOP INSERT INTO big SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 32768); END LOOP; END $$",
      );
      expect(fill.ok).toBe(false);
      expect(fill.stderr).toMatch(/could not (extend|write to) file|No space left on device/);
      const took = (await taken()) - takenBefore;
      console.log(
        `held: the tenant's volume took ${(took / MIB).toFixed(1)} MiB of the 100 MiB outside the reserve`,
      );
      expect(took).toBeLessThan(100 * MIB);
      expect(took).toBeGreaterThan(10 * MIB); // it did write, up to its allowance
      // What the customer is told the volume holds leaves the hold out.
      const usage = await required(h.driver.engine('postgresql').storage).usage(id);
      expect(usage?.usedBytes).toBeLessThan(0.9 * (usage?.limitBytes ?? 0));
      // And it can take nothing more, far short of its size: what its owner is told of (usage-alerts.ts).
      expect(usage?.roomBytes).toBeLessThan(MIB);

      // The room is back (the driver's own reserve): the hold goes, and the tenant writes again (its
      // server may first recover: on swarm its WAL shares the volume, and a full one stops the server).
      await h.driver.holds.round('eu-west-1');
      const deadline = Date.now() + 90_000;
      let again = await tenantCli('postgresql', credentials, 'SELECT 1');
      for (; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 1000))) {
        again = await tenantCli(
          'postgresql',
          credentials,
          "INSERT INTO big SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 32768); SELECT 'written'",
        );
        if (again.ok) break;
      }
      expect(again.stdout, again.stderr).toBe('written');
    } finally {
      h.driver.holds.start();
      await h.driver.engine('postgresql').delete(id);
    }
  }, 180_000);
});

describe('a volume made before volumes had a small journal', () => {
  const run = promisify(execFile);
  const NODE = 'euw1-m';
  const hash = (data: Buffer) => createHash('sha256').update(data).digest('hex');
  // The customer's files: 48 MiB, every 4 KiB block different.
  const content = Buffer.alloc(48 * MIB);
  for (let i = 0; i < content.length; i += 4096) content.writeUInt32LE(i, i);

  /** A volume's files on the node (a local node's mount namespace is this host's) and how to read them. */
  async function volumeOnNode() {
    const node = h.swarm.nodes.find((n) => n.name === NODE);
    if (!node) throw new Error(`no node ${NODE}`);
    const root = await h.docker(
      NODE,
      'node',
      'inspect',
      'self',
      '--format',
      '{{index .Spec.Labels "berth.volume-root"}}',
    );
    const name = `berth-journal${randomUUID().slice(0, 8)}`;
    const dir = path.join(root, name);
    const image = path.join(dir, 'disk.img');
    const fs = path.join(dir, 'fs');
    const agentLogs = async () => {
      const logs = await runCommand('/usr/bin/docker', ['-H', node.endpoint, 'logs', 'berth-agent']);
      return logs.stdout + logs.stderr;
    };
    const ready = (logs: string) => logs.split('berth-agent ready').length - 1;
    return {
      name,
      dir,
      image,
      fs,
      file: path.join(fs, 'data', 'uploads.bin'),
      agentLogs,
      journalMb: async () => journalMbOf((await run('/usr/sbin/dumpe2fs', ['-h', image])).stdout),
      takenBytes: () => statSync(image).blocks * 512,
      mounted: async () => (await runCommand('/usr/bin/mountpoint', ['-q', fs])).code === 0,
      /** Made as the agent made a 1 GiB volume before, and used for a while; left unmounted. */
      async makeOld() {
        await mkdir(root, { recursive: true, mode: 0o700 });
        await mkdir(fs, { recursive: true, mode: 0o711 });
        // Its image a tenth larger and 12 MiB more; ext4's default journal, 32 MiB, written to the
        // image as it is used.
        await run('/usr/bin/truncate', ['-s', `${1024 + 102 + 12}M`, image]);
        await run('/usr/sbin/mkfs.ext4', [
          '-q',
          '-F',
          '-m',
          '0',
          '-E',
          'lazy_itable_init=1,lazy_journal_init=1',
          image,
        ]);
        // The customer's 48 MiB written with data=journal go through all of the journal: the whole old
        // journal is then on the image, as on a volume that has been used for a while.
        await run('/usr/bin/mount', ['-o', 'loop,data=journal', image, fs]);
        const file = path.join(fs, 'data', 'uploads.bin');
        await mkdir(path.dirname(file));
        await writeFile(file, content);
        await chown(file, 999, 999);
        await chmod(file, 0o640);
        await run('/usr/bin/sync');
        await run('/usr/bin/umount', [fs]);
      },
      /** The agent started again: it mounts every volume of the node that is not mounted (as after a reboot). */
      async restartAgent() {
        const readyBefore = ready(await agentLogs());
        await h.docker(NODE, 'restart', 'berth-agent');
        const deadline = Date.now() + 60_000;
        while (ready(await agentLogs()) <= readyBefore) {
          if (Date.now() > deadline) throw new Error(`the agent did not start again: ${await agentLogs()}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      },
      async remove() {
        await h.docker(NODE, 'exec', 'berth-agent', 'berth-agent', 'volume-remove', name).catch(() => '');
        if ((await runCommand('/usr/bin/mountpoint', ['-q', fs])).code === 0) {
          await run('/usr/bin/umount', ['--lazy', fs]);
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  }

  it('gets the small journal when the agent mounts it again, keeps the customer’s files, and gives the old journal’s blocks back to the node', async () => {
    const v = await volumeOnNode();
    try {
      await v.makeOld();
      const oldJournal = (await v.journalMb()) ?? 0;
      const before = v.takenBytes();
      expect(oldJournal).toBe(32);
      expect(before).toBeGreaterThan(content.length + (oldJournal - 4) * MIB);

      await v.restartAgent();
      expect(await v.mounted()).toBe(true);
      expect(hash(await readFile(v.file))).toBe(hash(content));
      expect(await stat(v.file)).toMatchObject({ uid: 999, gid: 999, mode: 0o100640 });
      const after = v.takenBytes();
      console.log(
        `old journal ${oldJournal} MiB → ${await v.journalMb()} MiB; the image takes ${(before / MIB).toFixed(1)} → ${(after / MIB).toFixed(1)} MiB on the node`,
      );
      await run('/usr/bin/umount', [v.fs]);
      expect(await v.journalMb()).toBe(4);
      expect(before - after).toBeGreaterThan((oldJournal - 4) * MIB * 0.9);
      expect(await v.agentLogs()).toContain(`volume ${v.name}: its 32 MiB journal replaced by a 4 MiB one`);
      // Clean: e2fsck finds nothing to correct (its answer 0).
      await run('/usr/sbin/e2fsck', ['-f', '-n', v.image]);

      // Once small, it is left as it is (volume-create of an existing disk mounts it again).
      await h.docker(NODE, 'exec', 'berth-agent', 'berth-agent', 'volume-create', v.name, '1024');
      expect(await v.mounted()).toBe(true);
      expect(await v.journalMb()).toBe(4);
      expect(hash(await readFile(v.file))).toBe(hash(content));
    } finally {
      await v.remove();
    }
  }, 180_000);

  it('is mounted as it is, its files there, when its journal cannot be changed', async () => {
    const v = await volumeOnNode();
    try {
      await v.makeOld();
      // Two files claiming the same blocks (a second file's extent pointed into the first's): e2fsck -p
      // stops at that ("UNEXPECTED INCONSISTENCY"), the kernel mounts it all the same.
      await run('/usr/bin/mount', ['-o', 'loop', v.image, v.fs]);
      await writeFile(path.join(v.fs, 'data', 'copy.bin'), content.subarray(0, 64 * 1024));
      await run('/usr/bin/umount', [v.fs]);
      const debugfs = async (request: string, write = false) =>
        (await run('/usr/sbin/debugfs', [...(write ? ['-w'] : []), '-R', request, v.image])).stdout;
      const start = /\((\d+)-\d+\):(\d+)/.exec(await debugfs('stat /data/uploads.bin'))?.[2];
      if (!start) throw new Error('no extent of uploads.bin');
      // The inode's first (and only) extent's start: i_block[5] (after the header and the extent's first
      // logical block and its length).
      await debugfs(`set_inode_field /data/copy.bin block[5] ${start}`, true);
      expect(await debugfs('stat /data/copy.bin')).toMatch(new RegExp(`\\(0-15\\):${start}-`));
      await v.restartAgent();
      expect(await v.agentLogs()).toMatch(
        new RegExp(`volume ${v.name}: its 32 MiB journal kept \\(e2fsck answered 4\\)`),
      );
      // Mounted all the same, the customer's files there.
      expect(await v.mounted()).toBe(true);
      expect(hash(await readFile(v.file))).toBe(hash(content));
      expect(await v.journalMb()).toBe(32);
    } finally {
      await v.remove();
    }
  }, 180_000);
});

describe('a node that goes down', () => {
  it('shows the instance waiting for its server, and the same data once the server is back', async () => {
    // Placement takes the node with the most free memory: of two instances, one lands on the worker.
    const ids = [randomUUID(), randomUUID()];
    const creds: DatabaseCredentials[] = [];
    for (const id of ids)
      creds.push(
        (await h.driver.engine('mysql').deploy({ id, region: 'us-east-1', resources: SIZE }))
          .database as DatabaseCredentials,
      );
    const worker = h.swarm.nodes.find((n) => n.name === 'use1-w');
    const index = creds.findIndex((c) => c.host === worker?.address);
    expect(index).toBeGreaterThanOrEqual(0);
    const id = ids[index] ?? '';
    const onWorker = creds[index] as DatabaseCredentials;
    await mariadbCli(onWorker, "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('survives')");
    if (!worker) throw new Error('no worker');
    await killLocalNode(worker);
    const down = await waitForStatus(id, (s) => s.state === 'node-down', 60_000);
    expect(down.message).toBe(NODE_DOWN_MESSAGE);
    statuses.length = 0;
    await restartLocalNode(worker);
    await waitForStatus(id, (s) => s.state === 'running', 120_000);
    const deadline = Date.now() + 30_000;
    let answer = await mariadbCli(onWorker, 'SELECT v FROM t');
    while (!answer.ok && Date.now() < deadline) answer = await mariadbCli(onWorker, 'SELECT v FROM t');
    expect(answer.stdout).toBe('survives');
    for (const instance of ids) await h.driver.engine('mysql').delete(instance);
  }, 300_000);
});

describe('WordPress on swarm', () => {
  const id = randomUUID();
  const password = 'Wp-admin-pass-2026';
  const siteSpec = {
    id,
    region: 'us-east-1',
    resources: { memoryMb: 512, cpus: 0.5 },
    title: 'Swarm Bakery',
    adminUser: 'baker',
    adminEmail: 'baker@example.com',
    adminPassword: password,
    phpVersion: '8.2',
    // Given, as the platform gives every deploy its stored one: backups log in with it.
    databasePassword: 'Wp-db-pass-2026-swarm',
  };
  let front: string;
  let host: string;

  const get = (path: string, extra: string[] = []) =>
    curl(['--resolve', `${host}:80:${front}`, ...extra, `http://${host}${path}`]);

  it('deploys to running in us-east-1 and serves the site and wp-admin through the front door', async () => {
    const deployed = await h.driver.engine('wordpress').deploy(siteSpec);
    host = new URL(deployed.urls?.url ?? '').host;
    expect(host).toMatch(/^[a-z0-9]{12}\.us-east-1\.sites\.test$/);
    front = h.swarm.nodes.find((n) => n.name === 'use1-m')?.address ?? '';
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Swarm Bakery');
    const { spec, nodeLabels } = await inspect('use1-m', `berth-${id.replaceAll('-', '')}`);
    expect(nodeLabels.region).toBe('us-east-1');
    expect(spec.Spec.TaskTemplate.Resources.Limits).toEqual({
      MemoryBytes: 512 * 1024 * 1024,
      NanoCPUs: 5e8,
      Pids: 256,
    });
    // wp-admin login, as a browser does it: the test cookie, the form, the session cookie.
    const jar = `/tmp/berth-swarm-jar-${process.pid}`;
    const login = await get('/wp-login.php', [
      '-c',
      jar,
      '-b',
      'wordpress_test_cookie=WP%20Cookie%20check',
      '--data-urlencode',
      'log=baker',
      '--data-urlencode',
      `pwd=${password}`,
      '--data-urlencode',
      'wp-submit=Log In',
      '--data-urlencode',
      'testcookie=1',
    ]);
    expect(login.status).toBe(302);
    expect(login.headers).toMatch(/location: .*\/wp-admin\//i);
    const dashboard = await get('/wp-admin/', ['-b', jar]);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toContain('Dashboard');
  }, 180_000);

  it('measures the site: CPU, memory, its disk and the requests its front door answered', async () => {
    const usage = h.driver.usage;
    const instance = { id, type: 'wordpress' as const };
    const [first] = await usage.sample([instance]);
    expect(first).toMatchObject({ instanceId: id, intervalSeconds: 0, cpuSeconds: 0 });
    for (let i = 0; i < 5; i += 1) expect((await get('/')).status).toBe(200);
    // Requests are read from the front door's log by the second: poll until they are counted.
    let served = 0;
    let last: Awaited<ReturnType<typeof usage.sample>>[number] | undefined;
    const deadline = Date.now() + 30_000;
    while (served < 5 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      [last] = await usage.sample([instance]);
      served += last?.requests?.status2xx ?? 0;
    }
    expect(served).toBeGreaterThanOrEqual(5);
    expect(last?.intervalSeconds).toBeGreaterThan(0);
    expect(last?.cpuSeconds).toBeGreaterThanOrEqual(0);
    expect(last?.memoryBytes).toBeGreaterThan(1024 * 1024);
    expect(last?.memoryLimitBytes).toBe(512 * 1024 * 1024);
    expect(last?.diskLimitBytes).toBeGreaterThan(h.disks.wordpress * 0.8 * 1024 * 1024);
    expect(last?.diskUsedBytes).toBeGreaterThan(0);
    // What it can still write: all the rest of its disk while nothing holds it back.
    expect(last?.diskRoomBytes).toBeGreaterThan(
      0.5 * ((last?.diskLimitBytes ?? 0) - (last?.diskUsedBytes ?? 0)),
    );
    expect(last?.diskRoomBytes).toBeLessThanOrEqual((last?.diskLimitBytes ?? 0) - (last?.diskUsedBytes ?? 0));
    // Admin → Server: each node of each region, what is reserved there and its disk.
    const capacity = await usage.capacity();
    const east = capacity.places?.filter((place) => place.region === 'us-east-1') ?? [];
    expect(east.map((place) => place.state)).toEqual(['active', 'active']);
    expect(east.reduce((sum, place) => sum + place.reservedMemoryBytes, 0)).toBeGreaterThanOrEqual(
      512 * 1024 * 1024,
    );
    expect(east.every((place) => place.diskBytes > place.diskFreeBytes && place.diskFreeBytes > 0)).toBe(
      true,
    );
    expect(capacity.memoryBytes).toBeGreaterThan(1024 ** 3);
  }, 120_000);

  it('suspends to the offline page and resumes', async () => {
    await h.driver.engine('wordpress').suspend(id);
    const offline = await get('/');
    expect(offline.status).toBe(503);
    expect(offline.body).toContain('This site is temporarily offline');
    await h.driver.engine('wordpress').resume(id);
    expect((await get('/')).status).toBe(200);
  }, 180_000);

  it("keeps the site's code from other tenants, the metadata address and Docker", async () => {
    // A second tenant's site in the same region, on the same node or the other.
    const other = randomUUID();
    await h.driver.engine('wordpress').deploy({
      id: other,
      region: 'us-east-1',
      resources: { memoryMb: 256, cpus: 0.25 },
      title: 'Neighbour',
      adminUser: 'neighbour',
      adminEmail: 'n@example.com',
      adminPassword: 'Neighbour-pass-2026',
      phpVersion: '8.2',
    });
    const service = (instance: string) => `berth-${instance.replaceAll('-', '')}`;
    const mine = await inspect('use1-m', service(id));
    const theirs = await inspect('use1-m', service(other));
    const node = mine.node;
    const app = await containerOf(node, service(id));
    const theirNode = theirs.node;
    const theirApp = await containerOf(theirNode, service(other));
    const theirIp = await h.docker(
      theirNode,
      'inspect',
      theirApp,
      '--format',
      '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}',
    );
    // What customer code (PHP as www-data) in the first site reaches.
    const probe = async (host: string, port: number) =>
      h.docker(
        node,
        'exec',
        '-u',
        'www-data',
        app,
        'php',
        '-r',
        `$s = @fsockopen(${JSON.stringify(host)}, ${port}, $e, $m, 3); echo $s ? "open" : "closed";`,
      );
    expect(await probe(`${service(id)}-db`, 3306)).toBe('open');
    expect(await probe(`${service(other)}`, 8080)).toBe('closed');
    expect(await probe(`${service(other)}-db`, 3306)).toBe('closed');
    for (const ip of theirIp.split(' ').filter(Boolean)) expect(await probe(ip, 8080)).toBe('closed');
    expect(await probe('169.254.169.254', 80)).toBe('closed');
    expect(
      await h.docker(node, 'exec', app, 'sh', '-c', 'ls /var/run/docker.sock /run/docker.sock 2>&1 || true'),
    ).toMatch(/No such file/);
    // Its own files only: WordPress core and the system are read-only to it.
    expect(
      await h.docker(
        node,
        'exec',
        '-u',
        'www-data',
        app,
        'sh',
        '-c',
        'touch /var/www/wordpress/x.php 2>&1 || true',
      ),
    ).toMatch(/Read-only file system/);
    await h.driver.engine('wordpress').delete(other);
  }, 240_000);

  it('serves a custom domain over HTTPS with a certificate, the temporary URL still working', async () => {
    const urls = await h.driver.engine('wordpress').domains?.set(id, 'bakery.example.org');
    expect(urls?.url).toBe('https://bakery.example.org');
    const status = await h.driver.engine('wordpress').domains?.sslStatus(id);
    const deadline = Date.now() + 30_000;
    let ssl = status;
    while (ssl?.status !== 'Active' && Date.now() < deadline)
      ssl = await h.driver.engine('wordpress').domains?.sslStatus(id);
    expect(ssl).toMatchObject({ domain: 'bakery.example.org', status: 'Active' });
    // The certificate is checked: with the front door's CA it is trusted, without it refused.
    const caFile = await h.frontDoorCa(
      'use1-m',
      path.join(await mkdtemp(path.join(tmpdir(), 'berth-ca-')), 'root.crt'),
    );
    const https = ['--resolve', `bakery.example.org:443:${front}`, 'https://bakery.example.org/'];
    const page = await curl(['--cacert', caFile, ...https]);
    expect(page.status, page.stderr).toBe(200);
    expect(page.body).toContain('Swarm Bakery');
    const untrusted = await curl(https);
    expect(untrusted.status).toBe(0);
    expect(untrusted.stderr).toMatch(/certificate/i);
    await rm(path.dirname(caFile), { recursive: true, force: true });
    expect((await get('/')).status).toBe(200);
  }, 180_000);

  it('backs up database and files off the node and restores them', async () => {
    const { node } = await inspect('use1-m', `berth-${id.replaceAll('-', '')}`);
    const app = await containerOf(node, `berth-${id.replaceAll('-', '')}`);
    await h.docker(
      node,
      'exec',
      '-u',
      'www-data',
      app,
      'sh',
      '-c',
      'mkdir -p /var/www/wordpress/wp-content/uploads && echo kept > /var/www/wordpress/wp-content/uploads/probe.txt',
    );
    const backup = await archives.dump(h.driver.engine('wordpress').backups, siteSpec, 'site');
    await h.docker(
      node,
      'exec',
      '-u',
      'www-data',
      app,
      'rm',
      '/var/www/wordpress/wp-content/uploads/probe.txt',
    );
    expect((await get('/wp-content/uploads/probe.txt')).status).toBe(404);
    // The database changes too after the backup: the site's title, and a table of its own.
    const dbNode = (await inspect('use1-m', `berth-${id.replaceAll('-', '')}-db`)).node;
    const db = await containerOf(dbNode, `berth-${id.replaceAll('-', '')}-db`);
    await h.docker(
      dbNode,
      'exec',
      db,
      'mariadb',
      '--socket=/run/mysqld/mysqld.sock',
      'wordpress',
      '-e',
      "UPDATE wp_options SET option_value = 'Changed Bakery' WHERE option_name = 'blogname'; CREATE TABLE added_later (x INT)",
    );
    expect((await get('/')).body).toContain('Changed Bakery');
    await archives.restore(h.driver.engine('wordpress').backups, siteSpec, backup);
    const restored = await get('/wp-content/uploads/probe.txt');
    expect(restored.status).toBe(200);
    expect(restored.body.trim()).toBe('kept');
    const page = await get('/');
    expect(page.body).toContain('Swarm Bakery');
    expect(page.body).not.toContain('Changed Bakery');
    const tables = await h.docker(
      dbNode,
      'exec',
      db,
      'mariadb',
      '--socket=/run/mysqld/mysqld.sock',
      '-N',
      'wordpress',
      '-e',
      'SHOW TABLES',
    );
    expect(tables.split('\n')).not.toContain('added_later');
  }, 180_000);

  it('deletes both services, the network, the volumes and the secrets', async () => {
    const { node } = await inspect('use1-m', `berth-${id.replaceAll('-', '')}`);
    await h.driver.engine('wordpress').delete(id);
    expect(await h.docker('use1-m', 'service', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
      '',
    );
    expect(await h.docker('use1-m', 'secret', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe('');
    expect(await h.docker('use1-m', 'network', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
      '',
    );
    expect(await h.docker(node, 'volume', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe('');
    expect((await get('/')).status).toBe(404);
  }, 120_000);
});

describe('n8n on swarm', () => {
  const id = randomUUID();
  const spec = {
    id,
    region: 'eu-west-1',
    resources: { memoryMb: 1024, cpus: 1 },
    ownerEmail: 'owner@example.com',
    ownerPassword: 'Owner2026pass',
    encryptionKey: 'a-swarm-test-encryption-key-0123',
  };
  let url = '';
  let front = '';

  it('deploys in eu-west-1 and the owner logs in through the front door', async () => {
    const deployed = await h.driver.engine('n8n').deploy(spec);
    url = deployed.urls?.url ?? '';
    // Its admin page is n8n's editor, at its root.
    expect(deployed.urls?.adminUrl).toBe(`${url}/`);
    front = h.swarm.nodes.find((n) => n.name === 'euw1-m')?.address ?? '';
    const session = await n8nSession(url, spec.ownerEmail, spec.ownerPassword, front);
    expect(session.login.text).toContain('owner@example.com');
    const { spec: service, nodeLabels } = await inspect('euw1-m', `berth-${id.replaceAll('-', '')}`);
    expect(nodeLabels.region).toBe('eu-west-1');
    expect(service.Spec.TaskTemplate.Resources.Limits).toEqual({
      MemoryBytes: 1024 ** 3,
      NanoCPUs: 1e9,
      Pids: 512,
    });
    expect(JSON.stringify(service)).not.toContain('a-swarm-test-encryption-key-0123');
  }, 400_000);

  it('backs up with the encryption key: a restore brings back the workflow and a credential that decrypts', async () => {
    const session = await n8nSession(url, spec.ownerEmail, spec.ownerPassword, front);
    const credential = await session.call('POST', '/rest/credentials', {
      name: 'Partner API',
      type: 'httpBasicAuth',
      data: { user: 'partner', password: 'cred-swarm-2026' },
    });
    expect(credential.status).toBe(200);
    const credentialId = (credential.json().data as { id: string }).id;
    const created = await session.call('POST', '/rest/workflows', webhookWorkflow('Keep me', 'keep', 'kept'));
    const workflowId = (created.json().data as { id: string }).id;

    const backup = await archives.dump(h.driver.engine('n8n').backups, spec, 'n8n-swarm');
    // The same part as the local driver's (a backup of one box restores on a swarm).
    expect(backup.parts.map((p) => p.name)).toEqual(['data.tar.gz']);
    // The editor is back after the backup (n8n was stopped for a consistent copy).
    const after = await n8nSession(url, spec.ownerEmail, spec.ownerPassword, front);
    expect((await after.call('POST', `/rest/workflows/${workflowId}/archive`)).status).toBe(200);
    expect((await after.call('DELETE', `/rest/workflows/${workflowId}`)).status).toBe(200);
    expect((await after.call('DELETE', `/rest/credentials/${credentialId}`)).status).toBe(200);
    expect((await after.call('GET', `/rest/workflows/${workflowId}`)).status).toBe(404);

    await archives.restore(h.driver.engine('n8n').backups, spec, backup);
    const restored = await n8nSession(url, spec.ownerEmail, spec.ownerPassword, front);
    const workflow = await restored.call('GET', `/rest/workflows/${workflowId}`);
    expect(workflow.status).toBe(200);
    expect(workflow.json().data).toMatchObject({ name: 'Keep me' });
    const back = await restored.call('GET', `/rest/credentials/${credentialId}?includeData=true`);
    expect(back.status).toBe(200);
    expect(back.json().data).toMatchObject({ name: 'Partner API', data: { user: 'partner' } });
    expect(JSON.stringify(back.json().data)).not.toContain('U2FsdGVkX1');
  }, 400_000);

  it('deletes its service and leaves nothing', async () => {
    await h.driver.engine('n8n').delete(id);
    expect(await h.docker('euw1-m', 'service', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe(
      '',
    );
    expect(await h.docker('euw1-m', 'volume', 'ls', '-q', '--filter', `label=berth.instance=${id}`)).toBe('');
  }, 120_000);
});

describeSwarmTenantAttacks(
  () => h,
  () => archives,
);

// Last: it adds a node to us-east-1, which the tests above count on having two.
describe('a node that joins a region', () => {
  it('is prepared (images, agent) before it takes an instance, and its first deploy runs there', async () => {
    const node = await addLocalNode(h.swarm.root, 'us-east-1', {
      log: (line) => console.log(`[swarm] ${line}`),
    });
    h.swarm.nodes.push(node);
    // Joined with a region label and nothing of Berth's.
    expect(await h.docker(node.name, 'images', '--format', '{{.Repository}}')).toBe('');
    // The region's other servers paused (as an operator would: their instances run on, nothing new goes
    // there), so the next database can only go to the new one, once Berth has prepared it.
    const others = h.swarm.nodes.filter((n) => n.region === 'us-east-1' && n.name !== node.name);
    const availability = (value: string) =>
      Promise.all(
        others.map((n) =>
          h.docker('use1-m', 'node', 'update', '--availability', value, `${h.swarm.name}-${n.name}`),
        ),
      );
    const id = randomUUID();
    await availability('pause');
    const deployed = await h.driver
      .engine('mysql')
      .deploy({ id, region: 'us-east-1', resources: SIZE })
      .finally(() => availability('active'));
    const credentials = deployed.database as DatabaseCredentials;
    expect(credentials.host).toBe(node.address);
    expect(await h.docker(node.name, 'images', '--format', '{{.Repository}}')).toContain('berth/mariadb');
    expect((await mariadbCli(credentials, 'SELECT 1')).stdout).toBe('1');
    // n8n's runtime is on its disk (one host: the nodes share its files), and nobody labelled it: Berth
    // did when it prepared the node, so n8n instances may be placed there too. Without the runtime, no label.
    const labels = JSON.parse(
      await h.docker(
        'use1-m',
        'node',
        'inspect',
        '--format',
        '{{json .Spec.Labels}}',
        `${h.swarm.name}-${node.name}`,
      ),
    ) as Record<string, string>;
    expect(labels['berth.n8n-runtime']).toBe(
      installedN8nRuntime(DEFAULT_RUNTIMES_DIR) ? N8N_VERSION : undefined,
    );
    await h.driver.engine('mysql').delete(id);
  }, 600_000);
});
