import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { hostAddresses } from '../../../lib/host-addresses.ts';
import { launchInGroup } from '../host/control-groups.ts';
import { type OsUser, ownedDir } from '../host/host.ts';
import { BWRAP, settleSandboxed } from '../host/sandbox-process.ts';
import { SECCOMP_ARGS, spawnSandbox } from '../host/seccomp.ts';

/**
 * The sandbox of an n8n instance. n8n runs customer code (Code node, Execute Command node, HTTP calls to
 * anywhere), so like a WordPress site it runs in bubblewrap *as its own Unix user* with new user, mount,
 * PID, IPC, UTS and cgroup namespaces and nested user namespaces disabled. Inside, a read-only empty root
 * with only `/usr`, the CA bundle and time zone, a passwd/group/hosts naming only the instance, the
 * n8n runtime (read-only at /opt/n8n), our Node 24 binary (read-only at /opt/node/bin/node) and the
 * instance's own folders from its disk (n8n-disks.ts): /data (its n8n user folder, HOME) and /tmp. Both
 * lie in the disk's root folder, which is root's: the instance cannot swap either for a link to a host
 * path before a restart binds them (and the disk is mounted nosymfollow, so a link there is never
 * followed by anyone).
 *
 * Network: n8n needs outbound network to be useful, and the front door must reach its HTTP port, but it
 * must not reach the host's loopback services (the platform's PostgreSQL, MariaDB, Caddy's admin API,
 * the API itself, other instances' ports). So the sandbox gets a network namespace of its own from
 * `pasta` (Debian package passt), started as the instance user:
 *
 * - `--no-map-gw`, `-T none -U none`: the namespace's gateway is NOT mapped to the host, and no port of
 *   the host's loopback is forwarded into the namespace (pasta's default `auto` would forward every port
 *   bound on the host's loopback): the host's 127.0.0.1 is unreachable; the namespace's 127.0.0.1 is
 *   its own.
 * - its own address 10.0.2.15/24 (gateway 10.0.2.2, which pasta answers itself): traffic to any other
 *   address leaves through pasta's sockets on the host as the instance user, like any outbound client.
 * - `-t 127.0.0.1/<port>`: the one inbound port, bound on the host's loopback only and spliced to the
 *   same port on the namespace's loopback, where n8n listens; `-u none`: no inbound UDP. `-4`: IPv4
 *   only (pasta would otherwise also bind the port on every IPv6 address of the host).
 * - n8n's task broker (5679) and anything the customer binds stay inside the namespace.
 * - private, link-local (cloud metadata at 169.254.169.254) and reserved ranges, and the host's own
 *   addresses, are blackholed inside it unless the operator allows a range (blockEgress).
 */

const PASTA = '/usr/bin/pasta';
const PRLIMIT = '/usr/bin/prlimit';

/** Paths inside the n8n sandbox. */
export const N8N_INSIDE = {
  data: '/data',
  tmp: '/tmp',
  runtime: '/opt/n8n',
  node: '/opt/node/bin/node',
  /** Node's compile cache (NODE_COMPILE_CACHE), read-only. */
  compileCache: '/opt/node-cache',
} as const;

export interface N8nSandbox {
  /** Short key (names the config folder and the user). */
  key: string;
  user: OsUser;
  /** The instance's data folder on its disk (its user's, 700): /data inside. */
  dataDir: string;
  /** Its temporary folder on its disk (its user's, 700): /tmp inside. */
  tmpDir: string;
  /** Root-owned folder with passwd, group, hosts (read-only inside). */
  etcDir: string;
  /** The n8n runtime folder (read-only inside at /opt/n8n). */
  runtimeDir: string;
  /** The Node binary n8n runs on (ours: process.execPath). */
  nodeBin: string;
  /**
   * The runtime's compile cache folder (root's, read-only; n8n-runtime.ts), when made: bound read-only
   * under the name Node looks for as this user.
   */
  compileCache?: { dir: string; name: string };
  /** IPv4 CIDRs of blocked ranges the operator lets instances reach (TENANT_EGRESS_ALLOW). */
  egressAllow?: readonly string[];
  /**
   * The cgroup.procs files of the instance's control group (host/control-groups.ts): everything started
   * for it joins the group first. Empty on a host without control groups.
   */
  joins: readonly string[];
}

/** Writes passwd, group and hosts naming only the instance. */
export async function writeN8nSandboxFiles(etcDir: string, user: OsUser): Promise<void> {
  await ownedDir(path.dirname(etcDir), undefined, 0o711);
  await ownedDir(etcDir, undefined, 0o755);
  await writeFile(
    path.join(etcDir, 'passwd'),
    `${user.name}:x:${user.uid}:${user.gid}:Berth n8n:${N8N_INSIDE.data}:/usr/sbin/nologin\n`,
    { mode: 0o644 },
  );
  await writeFile(path.join(etcDir, 'group'), `${user.name}:x:${user.gid}:\n`, { mode: 0o644 });
  await writeFile(path.join(etcDir, 'hosts'), '127.0.0.1 localhost\n::1 localhost\n', { mode: 0o644 });
}

/**
 * pasta opens /dev/net/tun as the instance user to give the namespace its interface. Debian's udev makes
 * it 0666 (opening it only lets a process create interfaces in network namespaces it administers, i.e.
 * its own); minimal containers leave it 0600. Returns why pasta cannot work here, if so.
 */
export function prepareTun(): string | undefined {
  if (!existsSync(PASTA)) return 'n8n needs the host package passt (pasta gives each instance its network)';
  if (!existsSync('/dev/net/tun')) return 'n8n needs /dev/net/tun (pasta gives each instance its network)';
  if (!existsSync(IP)) return 'n8n needs the host package iproute2 (it blocks cloud metadata addresses)';
  const mode = statSync('/dev/net/tun').mode & 0o777;
  if ((mode & 0o006) !== 0o006) {
    try {
      chmodSync('/dev/net/tun', 0o666);
    } catch (error) {
      return `n8n needs /dev/net/tun to be usable by instance users (chmod 666): ${(error as Error).message}`;
    }
  }
  return undefined;
}

const optionalEtc = ['/etc/ssl/certs', '/etc/localtime', '/etc/timezone', '/etc/resolv.conf'];

/** The process limits of an instance: a fork bomb or a file-descriptor leak stays its own problem. */
const N8N_LIMITS = ['--nproc=512', '--nofile=8192', '--core=0'];

/** pasta's arguments: own network namespace, no way back to the host's loopback, one inbound port. */
function pastaArgs(port: number | undefined): string[] {
  return [
    '-4',
    '-q',
    '-f',
    '--config-net',
    '--no-map-gw',
    '-a',
    '10.0.2.15',
    '-n',
    '24',
    '-g',
    '10.0.2.2',
    '-t',
    port === undefined ? 'none' : `127.0.0.1/${port}`,
    '-u',
    'none',
    '-T',
    'none',
    '-U',
    'none',
    '--',
  ];
}

/**
 * bwrap's arguments (before the command) inside pasta's namespace. `binds`: more folders of the
 * instance's (host path → path inside), for maintenance.
 */
function n8nBwrapArgs(sandbox: N8nSandbox, binds: readonly (readonly [string, string])[] = []): string[] {
  return [
    // The system call filter of every tenant sandbox (seccomp.ts), on fd 3 from whoever spawns the line.
    ...SECCOMP_ARGS,
    '--unshare-user',
    '--uid',
    String(sandbox.user.uid),
    '--gid',
    String(sandbox.user.gid),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--disable-userns',
    '--new-session',
    // n8n dies with pasta (its network): never an instance left running without its supervisor's pid.
    '--die-with-parent',
    '--hostname',
    'n8n',
    '--ro-bind',
    '/usr',
    '/usr',
    ...['bin', 'sbin', 'lib', 'lib64'].flatMap((dir) => ['--symlink', `usr/${dir}`, `/${dir}`]),
    ...optionalEtc.filter((file) => existsSync(file)).flatMap((file) => ['--ro-bind', file, file]),
    ...['passwd', 'group', 'hosts'].flatMap((file) => [
      '--ro-bind',
      path.join(sandbox.etcDir, file),
      `/etc/${file}`,
    ]),
    '--ro-bind',
    sandbox.runtimeDir,
    N8N_INSIDE.runtime,
    '--ro-bind',
    sandbox.nodeBin,
    N8N_INSIDE.node,
    ...(sandbox.compileCache
      ? ['--ro-bind', sandbox.compileCache.dir, `${N8N_INSIDE.compileCache}/${sandbox.compileCache.name}`]
      : []),
    '--bind',
    sandbox.dataDir,
    N8N_INSIDE.data,
    '--bind',
    sandbox.tmpDir,
    N8N_INSIDE.tmp,
    ...binds.flatMap(([from, to]) => ['--bind', from, to]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--chdir',
    N8N_INSIDE.data,
    '--remount-ro',
    '/',
  ];
}

const IP = '/usr/bin/ip';

/**
 * Where an instance's traffic may not go unless the operator allows it (TENANT_EGRESS_ALLOW): private
 * and shared ranges (the host's LAN and a cloud's VPC: databases, other machines of the operator),
 * link-local (cloud metadata at 169.254.169.254, which hands out the host's credentials), "this network",
 * benchmarking, multicast and reserved space. The namespace's own 10.0.2.0/24 stays reachable (a more
 * specific route). Loopback is the namespace's own.
 */
export const BLOCKED_EGRESS = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
] as const;

const ipv4 = (address: string) => address.split('.').reduce((n, part) => n * 256 + Number(part), 0);

/** Whether an IPv4 address lies in a CIDR. */
export function inCidr(address: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(address) / size) === Math.floor(ipv4(base) / size);
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The host's IPv4 nameservers (the instance resolves names through the host's resolv.conf). */
function nameservers(): string[] {
  try {
    return [...readFileSync('/etc/resolv.conf', 'utf8').matchAll(/^nameserver\s+(\S+)\s*$/gm)]
      .map((match) => match[1] ?? '')
      .filter((address) => IPV4.test(address));
  } catch {
    return [];
  }
}

/**
 * The routes of an instance's network namespace, as `ip route add` arguments: the blocked ranges (less
 * those the operator allows outright) and each of this host's own IPv4 addresses (where the API and
 * anything else the host serves listen, whatever range they lie in) are blackholed; the operator's
 * allowed ranges and the host's nameservers that lie in a blocked range go out through pasta's gateway.
 * A nameserver that is one of the host's own addresses or loopback stays unreachable (allowing it would
 * open every port of the host): such a host gives its instances no DNS, which the log says.
 */
export function egressRoutes(
  allowed: readonly string[],
  own: ReadonlySet<string>,
  servers: readonly string[] = nameservers(),
): string[][] {
  const hostOwn = [...own].filter((address) => IPV4.test(address));
  const routes = BLOCKED_EGRESS.filter((cidr) => !allowed.includes(cidr)).map((cidr) => ['blackhole', cidr]);
  for (const cidr of allowed) routes.push([cidr, 'via', '10.0.2.2']);
  for (const server of servers) {
    if (hostOwn.includes(server) || inCidr(server, '127.0.0.0/8')) continue;
    if (BLOCKED_EGRESS.some((cidr) => inCidr(server, cidr)) && !allowed.some((c) => inCidr(server, c)))
      routes.push([`${server}/32`, 'via', '10.0.2.2']);
  }
  for (const address of hostOwn) routes.push(['blackhole', `${address}/32`]);
  return routes;
}

/**
 * The step between pasta and bwrap: in the instance's own network namespace (where this shell, pasta's
 * child, still holds CAP_NET_ADMIN over it), the routes of egressRoutes() are added, then the shell
 * execs bwrap. bwrap's nested user namespace leaves n8n without any capability over this network
 * namespace, so nothing inside can remove a route. Fails closed: a route not added, no n8n. IPv6 is off
 * (-4).
 */
function blockEgress(sandbox: N8nSandbox): string[] {
  const routes = egressRoutes(sandbox.egressAllow ?? [], hostAddresses());
  return [
    '/bin/sh',
    '-c',
    `${routes.map((route) => `${IP} route add ${route.join(' ')} && `).join('')}exec "$@"`,
    'n8n-network',
  ];
}

/**
 * The whole command line: prlimit → pasta → sh (egress routes) → bwrap → `command`, started as the
 * instance user inside its control group (launchInGroup: a root shell joins it and execs setpriv first
 * when the host has groups; `uid`/`gid` are then absent and the line is spawned as root). `title`: the
 * command line the running process shows (pasta's: prlimit execs it).
 */
export function n8nSandboxCommand(
  sandbox: N8nSandbox,
  port: number | undefined,
  command: string[],
): { command: string; args: string[]; uid?: number; gid?: number; title: string } {
  const pasta = [
    PASTA,
    ...pastaArgs(port),
    ...blockEgress(sandbox),
    BWRAP,
    ...n8nBwrapArgs(sandbox),
    '--',
    ...command,
  ];
  return {
    ...launchInGroup(sandbox.user, sandbox.joins, PRLIMIT, [...N8N_LIMITS, '--', ...pasta]),
    title: pasta.join('\0'),
  };
}

/** The environment of sandboxed processes: nothing of ours. */
export const N8N_BASE_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: N8N_INSIDE.data,
  LANG: 'C.UTF-8',
  TMPDIR: N8N_INSIDE.tmp,
};

export interface N8nSandboxRun {
  input?: string | Readable;
  output?: Writable;
  timeoutMs?: number;
  /** With the instance's kind of network (pasta, no inbound port); default: none at all (bwrap only). */
  network?: boolean;
  /**
   * More folders bound read-write (host path → path inside), without `network` only. Each must be the
   * instance's own and lie in a folder of root's, so the instance cannot have swapped it for a link.
   */
  binds?: readonly (readonly [string, string])[];
}

/**
 * Runs `command` in the instance's sandbox as its user and waits for it (maintenance: archives written
 * and read by tar; tests: probes). Without `network` the sandbox has no network at all.
 */
export async function runInN8nSandbox(
  sandbox: N8nSandbox,
  command: string[],
  run: N8nSandboxRun = {},
): Promise<{ stdout: string }> {
  const line = run.network
    ? n8nSandboxCommand(sandbox, undefined, command)
    : launchInGroup(sandbox.user, sandbox.joins, BWRAP, [
        '--unshare-net',
        ...n8nBwrapArgs(sandbox, run.binds),
        '--',
        ...command,
      ]);
  const child = spawnSandbox(line.command, line.args, { uid: line.uid, gid: line.gid, env: N8N_BASE_ENV });
  return settleSandboxed(child, command, run);
}
