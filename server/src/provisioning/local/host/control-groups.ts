import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_RESOURCES } from '@berth/openapi/rules';
import { isRoot, type OsUser } from './host.ts';

/**
 * A control group per instance: the kernel's bound on what its processes use together. Every process of
 * a site (its php-fpm, WP-Cron, SFTP sessions, the driver's maintenance commands in its sandbox) or of an
 * n8n instance (pasta, n8n, its task runner) starts inside the instance's group, which holds
 *
 * - a memory limit (the instance's memory): past it the kernel reclaims, then kills the largest process
 *   of the group (and only of the group), which the group's counter records (stats().oomKills);
 * - a CPU quota of N vCPU (N × 100 ms of CPU time per 100 ms period);
 * - a process count limit (PIDS_MAX), under the rlimits the sandboxes already set.
 *
 * Two kernels' interfaces, chosen at start from what the host mounts (detectLayout):
 * - cgroup v2 (production Debian hosts with systemd): one hierarchy; `memory.max`, `memory.swap.max`,
 *   `cpu.max`, `pids.max`; usage from `cpu.stat`, `memory.current`, `memory.peak`, `memory.events`;
 * - cgroup v1 (these machines: separate memory, cpu, cpuacct and pids hierarchies, no systemd):
 *   `memory.limit_in_bytes` (+ `memory.memsw.limit_in_bytes` where swap is accounted),
 *   `cpu.cfs_quota_us`/`cpu.cfs_period_us`, `pids.max`; usage from `cpuacct.usage`,
 *   `memory.usage_in_bytes`, `memory.max_usage_in_bytes`, `memory.oom_control`.
 *
 * Tenants cannot touch any of it: every folder and file is root's (the kernel creates them so), the
 * sandboxes mount no /sys, and a process is put into its group before it drops root (launchInGroup): a
 * site user can neither move a process out (writing a cgroup.procs file needs write access to it), nor
 * change a limit, nor make a group of its own. Root only ever opens files of cgroupfs here, named by
 * instance ids: nothing a tenant can name or link.
 */

export type ControlGroupMode = 'v2' | 'v1' | 'none';

export interface GroupLimits {
  memoryMb: number;
  /** vCPUs, e.g. 0.5 or 2. */
  cpus: number;
}

export interface GroupStats {
  /** CPU time the group's processes used since the group was made, seconds. */
  cpuSeconds: number;
  /** Memory in use now without the page cache the kernel can drop at once (what `docker stats` shows). */
  memoryBytes: number;
  /** The most the group held (page cache included) since the previous stats() call. */
  memoryPeakBytes: number;
  memoryLimitBytes: number | null;
  /** Processes the kernel killed for the group's memory since the group was made. */
  oomKills: number;
}

export interface ControlGroups {
  readonly mode: ControlGroupMode;
  /** One line for the start-up log: the mode and where the groups live (or why there are none). */
  readonly summary: string;
  /** Makes the instance's group when missing and writes its limits (live: running processes follow). */
  ensure(name: string, limits: GroupLimits): Promise<void>;
  /** The cgroup.procs files a process writes its pid to, to join the group (none without groups). */
  joins(name: string): string[];
  /** The group's usage now; undefined without groups or when the group does not exist. */
  stats(name: string): Promise<GroupStats | undefined>;
  /** The names of the groups that exist. */
  names(): Promise<string[]>;
  /** Kills what is left in the group and removes it. */
  remove(name: string): Promise<void>;
}

/** What an instance runs with when it was sold nothing else (rules.ts, both drivers). */
export const DEFAULT_LIMITS: GroupLimits = DEFAULT_RESOURCES;

/**
 * The CPU a site's group gets while it is first installed and renders its first page: the platform's
 * work (WordPress' installer, PHP compiling WordPress). At 0.25 vCPU the kernel throttled 42 of its 48
 * periods, 3.4 s of a 3.7 s deploy; with a core both take about 1.3 s. Its own limit is back once the
 * site answers.
 */
export const INSTALL_CPUS = 1;

/** Every instance may run this many processes at once (its sandboxes' rlimits are per user). */
export const PIDS_MAX = 512;
const CPU_PERIOD_US = 100_000;
/** What v1 reports as "no limit" (PAGE_COUNTER_MAX pages). */
const V1_UNLIMITED = 2n ** 62n;

/** Where the groups live: v2's one folder, or v1's folder in each hierarchy. */
export type GroupLayout =
  | { mode: 'v2'; mount: string; parent: string }
  | { mode: 'v1'; mounts: { memory: string; cpu: string; cpuacct: string; pids?: string }; parent: string };

/**
 * The hierarchies the host mounts (/proc/self/mountinfo): v2 when its root offers the memory and cpu
 * controllers, else v1 when memory, cpu and cpuacct are mounted, else none (with the reason).
 */
export function detectLayout(
  mountinfo: string,
  parent: string,
  controllersOf: (mount: string) => string = (mount) =>
    readFileSync(path.join(mount, 'cgroup.controllers'), 'utf8'),
): GroupLayout | { mode: 'none'; reason: string } {
  const v1: Record<string, string> = {};
  const v2: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const [mountPart, superPart] = line.split(' - ');
    const mountPoint = mountPart?.split(' ')[4];
    const [fsType, , superOptions = ''] = superPart?.split(' ') ?? [];
    if (!mountPoint) continue;
    if (fsType === 'cgroup2') v2.push(mountPoint);
    if (fsType === 'cgroup')
      for (const option of superOptions.split(',')) if (!(option in v1)) v1[option] = mountPoint;
  }
  for (const mount of v2) {
    let controllers: string[] = [];
    try {
      controllers = controllersOf(mount).trim().split(/\s+/);
    } catch {
      // unreadable: not usable
    }
    if (controllers.includes('memory') && controllers.includes('cpu')) return { mode: 'v2', mount, parent };
  }
  const { memory, cpu, cpuacct, pids } = v1;
  if (memory && cpu && cpuacct) return { mode: 'v1', mounts: { memory, cpu, cpuacct, pids }, parent };
  return {
    mode: 'none',
    reason:
      'the host mounts neither cgroup v2 with the memory and cpu controllers nor cgroup v1 memory, cpu and cpuacct',
  };
}

const readText = async (file: string) => (await readFile(file, 'utf8')).trim();
/**
 * A group's counters, read at once: the kernel's files answer from memory, and the sampler reads a few
 * of each of hundreds of groups every 15 s, where a round trip through libuv's threads per file cost ten
 * times more CPU than the reads.
 */
const counters = (file: string) => readFileSync(file, 'utf8').trim();
const counter = (file: string) => Number(counters(file));

/** The value of `key` in a "key value" per line file (memory.stat, memory.events, cpu.stat, oom_control). */
function field(text: string, key: string): number {
  const line = text.split('\n').find((entry) => entry.startsWith(`${key} `));
  return Number(line?.slice(key.length + 1) ?? 0);
}

/** Writes, ignoring a file the kernel does not offer (no swap accounting, an older kernel). */
async function writeIfPresent(file: string, value: string): Promise<void> {
  if (existsSync(file)) await writeFile(file, value);
}

function v2Groups(layout: Extract<GroupLayout, { mode: 'v2' }>): ControlGroups {
  const parentDir = path.join(layout.mount, layout.parent);
  const dir = (name: string) => path.join(parentDir, name);
  /** memory.peak is reset per open file (kernel 6.12+): one handle per group, kept between samples. */
  const peaks = new Map<string, FileHandle>();
  let prepared = false;

  /** The controllers the groups need, turned on for the children of the mount and of the parent. */
  async function prepare(): Promise<void> {
    if (prepared) return;
    await mkdir(parentDir, { recursive: true });
    for (const folder of [layout.mount, parentDir]) {
      const offered = existsSync(path.join(folder, 'cgroup.controllers'))
        ? (await readText(path.join(folder, 'cgroup.controllers'))).split(/\s+/)
        : ['memory', 'cpu', 'pids'];
      const wanted = ['memory', 'cpu', 'pids'].filter((c) => offered.includes(c));
      await writeFile(path.join(folder, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
    }
    prepared = true;
  }

  async function peakOf(name: string): Promise<number | undefined> {
    try {
      let handle = peaks.get(name);
      if (!handle) {
        handle = await open(path.join(dir(name), 'memory.peak'), 'r+');
        peaks.set(name, handle);
      }
      const buffer = Buffer.alloc(64);
      const { bytesRead } = await handle.read(buffer, 0, 64, 0);
      const peak = Number(buffer.subarray(0, bytesRead).toString().trim());
      // The next read sees the peak from now on (through this handle only).
      await handle.write('reset\n', 0).catch(() => {});
      return Number.isFinite(peak) ? peak : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    mode: 'v2',
    summary: `cgroup v2 at ${parentDir}`,
    async ensure(name, limits) {
      await prepare();
      await mkdir(dir(name), { recursive: true });
      await writeFile(path.join(dir(name), 'memory.max'), String(limits.memoryMb * 1024 * 1024));
      await writeIfPresent(path.join(dir(name), 'memory.swap.max'), '0');
      const quota = Math.round(limits.cpus * CPU_PERIOD_US);
      await writeFile(path.join(dir(name), 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
      await writeFile(path.join(dir(name), 'pids.max'), String(PIDS_MAX));
    },
    joins: (name) => [path.join(dir(name), 'cgroup.procs')],
    async stats(name) {
      if (!existsSync(dir(name))) return undefined;
      const [cpu, current, stat, events, max] = [
        counters(path.join(dir(name), 'cpu.stat')),
        counter(path.join(dir(name), 'memory.current')),
        counters(path.join(dir(name), 'memory.stat')),
        counters(path.join(dir(name), 'memory.events')),
        counters(path.join(dir(name), 'memory.max')),
      ];
      return {
        cpuSeconds: field(cpu, 'usage_usec') / 1e6,
        memoryBytes: Math.max(0, current - field(stat, 'inactive_file')),
        memoryPeakBytes: (await peakOf(name)) ?? current,
        memoryLimitBytes: max === 'max' ? null : Number(max),
        oomKills: field(events, 'oom_kill'),
      };
    },
    async names() {
      if (!existsSync(parentDir)) return [];
      return (await readdir(parentDir, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    },
    async remove(name) {
      await peaks.get(name)?.close();
      peaks.delete(name);
      await removeGroupDir(dir(name));
    },
  };
}

function v1Groups(layout: Extract<GroupLayout, { mode: 'v1' }>): ControlGroups {
  const { mounts } = layout;
  const at = (mount: string, name: string) => path.join(mount, layout.parent, name);
  /** Each hierarchy the groups use, once (cpu and cpuacct are often mounted together). */
  const hierarchies = [...new Set([mounts.memory, mounts.cpu, mounts.cpuacct, mounts.pids])].filter(
    (mount): mount is string => mount !== undefined,
  );

  /** memory.limit_in_bytes must never exceed memsw: raise memsw first, lower it last. */
  async function writeMemory(group: string, bytes: number): Promise<void> {
    const memsw = path.join(group, 'memory.memsw.limit_in_bytes');
    const limit = path.join(group, 'memory.limit_in_bytes');
    if (!existsSync(memsw)) return writeFile(limit, String(bytes));
    const current = Number(await readText(limit));
    if (bytes > current) {
      await writeFile(memsw, String(bytes));
      await writeFile(limit, String(bytes));
    } else {
      await writeFile(limit, String(bytes));
      await writeFile(memsw, String(bytes));
    }
  }

  return {
    mode: 'v1',
    summary: `cgroup v1 (memory at ${path.join(mounts.memory, layout.parent)}, cpu at ${path.join(mounts.cpu, layout.parent)})`,
    async ensure(name, limits) {
      for (const mount of hierarchies) await mkdir(at(mount, name), { recursive: true });
      await writeMemory(at(mounts.memory, name), limits.memoryMb * 1024 * 1024);
      const cpu = at(mounts.cpu, name);
      await writeFile(path.join(cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
      await writeFile(path.join(cpu, 'cpu.cfs_quota_us'), String(Math.round(limits.cpus * CPU_PERIOD_US)));
      if (mounts.pids) await writeFile(path.join(at(mounts.pids, name), 'pids.max'), String(PIDS_MAX));
    },
    joins: (name) => hierarchies.map((mount) => path.join(at(mount, name), 'cgroup.procs')),
    async stats(name) {
      const memory = at(mounts.memory, name);
      if (!existsSync(memory)) return undefined;
      const [usage, cpuNs, stat, peak, limit, oom] = [
        counter(path.join(memory, 'memory.usage_in_bytes')),
        counters(path.join(at(mounts.cpuacct, name), 'cpuacct.usage')),
        counters(path.join(memory, 'memory.stat')),
        counter(path.join(memory, 'memory.max_usage_in_bytes')),
        counters(path.join(memory, 'memory.limit_in_bytes')),
        counters(path.join(memory, 'memory.oom_control')),
      ];
      // The next peak counts from now (writing 0 resets it to the current usage).
      try {
        writeFileSync(path.join(memory, 'memory.max_usage_in_bytes'), '0');
      } catch {
        // a group removed meanwhile
      }
      return {
        cpuSeconds: Number(BigInt(cpuNs)) / 1e9,
        memoryBytes: Math.max(0, usage - field(stat, 'total_inactive_file')),
        memoryPeakBytes: peak,
        memoryLimitBytes: BigInt(limit) >= V1_UNLIMITED ? null : Number(limit),
        oomKills: field(oom, 'oom_kill'),
      };
    },
    async names() {
      const parent = path.join(mounts.memory, layout.parent);
      if (!existsSync(parent)) return [];
      return (await readdir(parent, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    },
    async remove(name) {
      for (const mount of hierarchies) await removeGroupDir(at(mount, name));
    },
  };
}

/**
 * rmdir of a group folder (cgroupfs removes its files with it). Processes still in it (a command the
 * driver ran that outlived its instance) are killed first: a group with members cannot be removed.
 */
async function removeGroupDir(dir: string): Promise<void> {
  for (let attempt = 0; existsSync(dir); attempt += 1) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      if (attempt >= 20) throw error;
      const procs = await readText(path.join(dir, 'cgroup.procs')).catch(() => '');
      for (const pid of procs.split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      await sleep(100);
    }
  }
}

const noGroups = (reason: string): ControlGroups => ({
  mode: 'none',
  summary: `no control groups (${reason}): instances' memory and CPU are not enforced`,
  ensure: async () => {},
  joins: () => [],
  stats: async () => undefined,
  names: async () => [],
  remove: async () => {},
});

/** The groups of a layout (tests give one of their own: a v2 tree in a temporary folder). */
export function controlGroupsAt(layout: GroupLayout): ControlGroups {
  return layout.mode === 'v2' ? v2Groups(layout) : v1Groups(layout);
}

/**
 * The host's control groups under `parent` (a folder name of each hierarchy's root, e.g. `berth`):
 * v2 or v1 as mounted; none when the server is not root or the host has neither.
 */
export function hostControlGroups(parent: string): ControlGroups {
  if (!isRoot()) return noGroups('the server does not run as root');
  let mountinfo = '';
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return noGroups('/proc/self/mountinfo is unreadable');
  }
  const layout = detectLayout(mountinfo, parent);
  return layout.mode === 'none' ? noGroups(layout.reason) : controlGroupsAt(layout);
}

/** Shell run as root: writes its own pid into each file before `--`, then execs what follows. */
const JOIN_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

/**
 * How a tenant's command starts inside its group: a root shell joins the group (writes its pid into
 * each cgroup.procs file), then execs setpriv, which becomes the tenant user (its own group, no
 * supplementary groups: what spawn's uid/gid gives) and execs the command. Same pid from start to end,
 * so the supervisor's pid is the command's, and everything it forks is in the group from its first
 * instruction. Without groups (`joins` empty) the command is spawned as the user directly.
 */
export function launchInGroup(
  user: OsUser,
  joins: readonly string[],
  command: string,
  args: readonly string[],
): { command: string; args: string[]; uid?: number; gid?: number } {
  if (joins.length === 0) return { command, args: [...args], uid: user.uid, gid: user.gid };
  return {
    command: '/bin/sh',
    args: [
      '-c',
      JOIN_SCRIPT,
      'berth-join',
      ...joins,
      '--',
      '/usr/bin/setpriv',
      `--reuid=${user.uid}`,
      `--regid=${user.gid}`,
      '--clear-groups',
      '--',
      command,
      ...args,
    ],
  };
}
