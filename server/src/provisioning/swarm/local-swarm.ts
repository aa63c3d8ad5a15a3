import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import Docker from 'dockerode';

/**
 * A Docker Swarm on this one host, for `npm run swarm:local` and the tests: each "node" is a dockerd in a
 * network namespace of its own (`ip netns`), the namespaces joined by a bridge that lives in a namespace
 * of its own too (the "switch"), which the host reaches through one veth. Nothing of the host changes: not
 * its firewall, not its forwarding (each dockerd writes iptables rules and ip_forward inside its own
 * namespace only; traffic between the nodes never crosses the host's own network stack, so a host whose
 * firewall drops forwarded or bridged packets does not get in the way), and traffic goes only between the
 * host and the namespaces.
 *
 *   host 10.231.N.1 ── veth ── netns <name>-sw: bridge
 *                                 ├─ veth ─ netns <name>-use1-m   dockerd, manager of us-east-1   10.231.N.11
 *                                 ├─ veth ─ netns <name>-use1-w   dockerd, worker of us-east-1    10.231.N.12
 *                                 └─ veth ─ netns <name>-euw1-m   dockerd, manager of eu-west-1   10.231.N.21
 *
 * Each region is a swarm of its own (a region maps to one manager's Docker endpoint). Node labels:
 * `region=<id>`, `berth.engine=unix://<socket>` (where the driver reaches that node's own Engine API, for
 * backups and the like), `berth.public-address=<ip>` (the address credentials name), `berth.volume-root`
 * (where the node's agent keeps instances' disks: in the node's folder), and
 * `berth.n8n-runtime=<version>` where the n8n runtime is installed (every node here: they share the host's
 * /var/cache/berth/runtimes).
 */

const run = promisify(execFile);

export interface LocalNodeSpec {
  /** Short node name: use1-m, use1-w, euw1-m. */
  name: string;
  region: string;
  role: 'manager' | 'worker';
  /** Last byte of the node's address. */
  host: number;
}

const LOCAL_NODES: readonly LocalNodeSpec[] = [
  { name: 'use1-m', region: 'us-east-1', role: 'manager', host: 11 },
  { name: 'use1-w', region: 'us-east-1', role: 'worker', host: 12 },
  { name: 'euw1-m', region: 'eu-west-1', role: 'manager', host: 21 },
];

export interface LocalSwarmOptions {
  /** Prefix of every name this swarm makes (namespaces, bridge, folders); up to 8 of [a-z0-9-]. */
  name: string;
  /** Third byte of the 10.231.N.0/24 the nodes live in. */
  subnet: number;
  /** Folder for the nodes' data (images, volumes, logs, sockets). */
  root: string;
  /** Labels every node gets besides its region (e.g. the n8n runtime's). */
  extraLabels?: Record<string, string>;
  nodes?: readonly LocalNodeSpec[];
  log?: (line: string) => void;
}

export interface LocalNode extends LocalNodeSpec {
  netns: string;
  address: string;
  socket: string;
  /** `unix://<socket>`. */
  endpoint: string;
  dir: string;
}

export interface LocalSwarm {
  name: string;
  root: string;
  /** The switch's namespace (holding the bridge) and the host's veth into it. */
  switchNetns: string;
  hostLink: string;
  nodes: LocalNode[];
  /** Region id → the manager's endpoint. */
  regions: Record<string, string>;
}

const STATE = 'swarm.json';

const nodeOf = (options: LocalSwarmOptions, spec: LocalNodeSpec): LocalNode => {
  const dir = path.join(options.root, spec.name);
  const socket = path.join(dir, 'docker.sock');
  return {
    ...spec,
    netns: `${options.name}-${spec.name}`,
    address: `10.231.${options.subnet}.${spec.host}`,
    socket,
    endpoint: `unix://${socket}`,
    dir,
  };
};

async function sh(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const e = error as Error & { stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

const quiet = (command: string, args: string[]) => sh(command, args).catch(() => '');

/** The host's veth name (interface names have at most 15 characters). */
const hostLinkName = (name: string) => `${name}h`.slice(0, 15);

async function startDockerd(node: LocalNode, log: (line: string) => void): Promise<ChildProcess> {
  await mkdir(node.dir, { recursive: true });
  const out = openSync(path.join(node.dir, 'dockerd.log'), 'a');
  // nsenter, not `ip netns exec`: the latter remounts /sys for the namespace, hiding the cgroup mounts.
  // A UTS namespace of its own too, so that each node has its own host name in the swarm.
  const child = spawn(
    'nsenter',
    [
      `--net=/run/netns/${node.netns}`,
      'unshare',
      '--uts',
      '--',
      'sh',
      '-c',
      'hostname "$0" && exec "$@"',
      node.netns,
      'dockerd',
      '-H',
      node.endpoint,
      '--data-root',
      path.join(node.dir, 'data'),
      '--exec-root',
      path.join(node.dir, 'exec'),
      '--pidfile',
      path.join(node.dir, 'dockerd.pid'),
      '--storage-driver',
      'overlay2',
      // Bridges inside the namespace (docker0, docker_gwbridge) from a range of their own.
      '--default-address-pool',
      'base=172.30.0.0/16,size=24',
      '--bip',
      '172.29.0.1/24',
      '--log-driver',
      'json-file',
      '--log-opt',
      'max-size=5m',
      // No process of a container gains a privilege it was not started with (setuid binaries included):
      // the swarm API cannot ask for it service by service, so the daemon sets it for every container.
      '--no-new-privileges',
    ],
    { detached: true, stdio: ['ignore', out, out] },
  );
  child.unref();
  const docker = new Docker({ socketPath: node.socket });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await docker.ping();
      log(`dockerd of ${node.name} answers on ${node.socket}`);
      return child;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        const tail = readFileSync(path.join(node.dir, 'dockerd.log'), 'utf8').slice(-2000);
        throw new Error(`dockerd of ${node.name} did not start:\n${tail}`);
      }
      await sleep(200);
    }
  }
}

/** A node's namespace, cabled to the switch's bridge, with its address. */
async function plugIn(swarm: Pick<LocalSwarm, 'switchNetns'>, node: LocalNode): Promise<void> {
  const inSwitch = (...args: string[]) => sh('ip', ['netns', 'exec', swarm.switchNetns, 'ip', ...args]);
  const port = node.name.replace(/-/g, '');
  await sh('ip', ['netns', 'add', node.netns]);
  await inSwitch('link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', node.netns);
  await inSwitch('link', 'set', port, 'master', 'br0');
  await inSwitch('link', 'set', port, 'up');
  const inNs = (...args: string[]) => sh('ip', ['netns', 'exec', node.netns, ...args]);
  await inNs('ip', 'link', 'set', 'lo', 'up');
  await inNs('ip', 'addr', 'add', `${node.address}/24`, 'dev', 'eth0');
  await inNs('ip', 'link', 'set', 'eth0', 'up');
}

/** The state file of a running local swarm under `root`, if any. */
export function readLocalSwarm(root: string): LocalSwarm | undefined {
  const file = path.join(root, STATE);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as LocalSwarm;
}

/**
 * Starts the namespaces, the bridge, a dockerd per node, one swarm per region (the worker joins its
 * region's manager) and labels the nodes. Throws (after stopping what it started) when a step fails.
 */
export async function startLocalSwarm(options: LocalSwarmOptions): Promise<LocalSwarm> {
  const log = options.log ?? (() => {});
  const nodes = (options.nodes ?? LOCAL_NODES).map((spec) => nodeOf(options, spec));
  const switchNetns = `${options.name}-sw`;
  const hostLink = hostLinkName(options.name);
  const swarm: LocalSwarm = {
    name: options.name,
    root: options.root,
    switchNetns,
    hostLink,
    nodes,
    regions: Object.fromEntries(
      nodes.filter((node) => node.role === 'manager').map((node) => [node.region, node.endpoint]),
    ),
  };
  await mkdir(options.root, { recursive: true, mode: 0o700 });
  // Written first, so that stop() can undo a half-made swarm too.
  await writeFile(path.join(options.root, STATE), JSON.stringify(swarm, null, 2));
  try {
    const inSwitch = (...args: string[]) => sh('ip', ['netns', 'exec', switchNetns, 'ip', ...args]);
    await sh('ip', ['netns', 'add', switchNetns]);
    await inSwitch('link', 'add', 'br0', 'type', 'bridge');
    await inSwitch('link', 'set', 'br0', 'up');
    await sh('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', 'host', 'netns', switchNetns]);
    await sh('ip', ['addr', 'add', `10.231.${options.subnet}.1/24`, 'dev', hostLink]);
    await sh('ip', ['link', 'set', hostLink, 'up']);
    await inSwitch('link', 'set', 'host', 'master', 'br0');
    await inSwitch('link', 'set', 'host', 'up');
    for (const node of nodes) await plugIn(swarm, node);
    await Promise.all(nodes.map((node) => startDockerd(node, log)));
    for (const manager of nodes.filter((node) => node.role === 'manager')) {
      const docker = new Docker({ socketPath: manager.socket });
      await docker.swarmInit({
        ListenAddr: `${manager.address}:2377`,
        AdvertiseAddr: manager.address,
        DefaultAddrPool: ['10.232.0.0/16'],
        SubnetSize: 24,
      });
      const info = (await docker.swarmInspect()) as { JoinTokens: { Worker: string } };
      for (const worker of nodes.filter((n) => n.role === 'worker' && n.region === manager.region)) {
        await new Docker({ socketPath: worker.socket }).swarmJoin({
          ListenAddr: `${worker.address}:2377`,
          AdvertiseAddr: worker.address,
          RemoteAddrs: [`${manager.address}:2377`],
          JoinToken: info.JoinTokens.Worker,
        });
      }
      await labelNodes(docker, nodes, options.extraLabels ?? {});
      log(`swarm of ${manager.region} ready (manager ${manager.address})`);
    }
    return swarm;
  } catch (error) {
    await stopLocalSwarm(options.root, log).catch(() => {});
    throw error;
  }
}

interface SwarmNodeInfo {
  ID: string;
  Version: { Index: number };
  Spec: Record<string, unknown> & { Labels?: Record<string, string> };
  Description: { Hostname: string };
  Status: { Addr: string; State: string };
}

/** Labels every node of a region's swarm (found by its address) with its region and engine endpoint. */
async function labelNodes(manager: Docker, nodes: LocalNode[], extra: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listed = (await manager.listNodes()) as SwarmNodeInfo[];
    const ready = listed.filter((n) => n.Status.State === 'ready');
    const expected = nodes.filter((n) => ready.some((r) => r.Status.Addr === n.address));
    const region = nodes.find((n) => listed.some((r) => r.Status.Addr === n.address))?.region;
    const wanted = nodes.filter((n) => n.region === region);
    if (expected.length === wanted.length) {
      for (const info of ready) {
        const node = nodes.find((n) => n.address === info.Status.Addr);
        if (!node) continue;
        await manager.getNode(info.ID).update({
          version: info.Version.Index,
          ...info.Spec,
          Labels: {
            ...(info.Spec.Labels ?? {}),
            region: node.region,
            'berth.engine': node.endpoint,
            'berth.public-address': node.address,
            // Instances' disks (node-agent.ts) in the node's own folder, gone with it.
            'berth.volume-root': path.join(node.dir, 'volumes'),
            ...extra,
          },
        });
      }
      return;
    }
    if (Date.now() > deadline) throw new Error('the nodes of the local swarm did not become ready in 30 s');
    await sleep(250);
  }
}

async function processAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops one node's dockerd (and so its containers): SIGTERM, SIGKILL after 20 s. */
async function stopLocalNode(node: LocalNode): Promise<void> {
  const pidFile = path.join(node.dir, 'dockerd.pid');
  const pid = existsSync(pidFile) ? Number(await readFile(pidFile, 'utf8')) : Number.NaN;
  if (!Number.isInteger(pid) || !(await processAlive(pid))) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 20_000;
  while (await processAlive(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await sleep(100);
  }
}

/**
 * Kills a node the hard way (its dockerd, every process in its namespace and its containers'), as a
 * machine that dies would: the manager notices by its missed heartbeats.
 */
export async function killLocalNode(node: LocalNode): Promise<void> {
  const pids = (await quiet('ip', ['netns', 'pids', node.netns])).split('\n').filter(Boolean).map(Number);
  // Its containers' processes too (they live in network namespaces of their own): a machine that dies
  // takes them with it. They are told by their control group, named after the node's container ids.
  const containersDir = path.join(node.dir, 'data', 'containers');
  const ids = existsSync(containersDir) ? await readdir(containersDir) : [];
  if (ids.length > 0) {
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const cgroup = await readFile(`/proc/${entry}/cgroup`, 'utf8').catch(() => '');
      if (ids.some((id) => cgroup.includes(id))) pids.push(Number(entry));
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  for (const pid of pids) while (await processAlive(pid)) await sleep(50);
}

/** Starts a node's dockerd again (after stopLocalNode or killLocalNode); it rejoins its swarm by itself. */
export async function restartLocalNode(node: LocalNode, log: (line: string) => void = () => {}) {
  await rm(path.join(node.dir, 'dockerd.pid'), { force: true });
  await startDockerd(node, log);
}

/**
 * Stops everything the local swarm under `root` made: each dockerd by its pid (then anything left in its
 * namespace), the namespaces (their veths and the switch's bridge go with them), the nodes' folders. Safe
 * to call twice.
 */
export async function stopLocalSwarm(root: string, log: (line: string) => void = () => {}): Promise<void> {
  const swarm = readLocalSwarm(root);
  if (!swarm) return;
  await Promise.all(swarm.nodes.map((node) => stopLocalNode(node).catch(() => {})));
  for (const node of swarm.nodes) {
    await killLocalNode(node);
    // Overlay mounts of containers that were still running when dockerd went down.
    const mounts = (await quiet('findmnt', ['-rn', '-o', 'TARGET']))
      .split('\n')
      .filter((target) => target.startsWith(`${node.dir}/`))
      .sort((a, b) => b.length - a.length);
    for (const target of mounts) await quiet('umount', ['-l', target]);
    await quiet('ip', ['netns', 'del', node.netns]);
  }
  await quiet('ip', ['netns', 'del', swarm.switchNetns]);
  await quiet('ip', ['link', 'del', swarm.hostLink]);
  await rm(root, { recursive: true, force: true });
  log(`local swarm ${swarm.name} stopped and removed`);
}

/**
 * Adds a worker to a region of the running local swarm under `root`, as an operator adds a machine: a
 * new namespace and dockerd that joins the region's swarm and gets its `region` label (and, this being
 * one host, where its own engine and folder are). It has none of Berth's images and none of its agent:
 * Berth prepares it before placing anything there (node-agent.ts). Answers the new node.
 */
export async function addLocalNode(
  root: string,
  region: string,
  options: { extraLabels?: Record<string, string>; log?: (line: string) => void } = {},
): Promise<LocalNode> {
  const log = options.log ?? (() => {});
  const swarm = readLocalSwarm(root);
  if (!swarm) throw new Error(`no local swarm under ${root}`);
  const manager = swarm.nodes.find((node) => node.region === region && node.role === 'manager');
  if (!manager) throw new Error(`the local swarm has no region ${region}`);
  const subnet = Number(manager.address.split('.')[2]);
  const taken = new Set(swarm.nodes.map((node) => node.host));
  let host = manager.host + 2;
  while (taken.has(host)) host += 1;
  const short = manager.name.replace(/-m$/, '');
  const count = swarm.nodes.filter((node) => node.region === region && node.role === 'worker').length;
  const node = nodeOf(
    { name: swarm.name, subnet, root },
    { name: `${short}-w${count + 1}`, region, role: 'worker', host },
  );
  swarm.nodes.push(node);
  await writeFile(path.join(root, STATE), JSON.stringify(swarm, null, 2));
  await plugIn(swarm, node);
  await startDockerd(node, log);
  const managerDocker = new Docker({ socketPath: manager.socket });
  const info = (await managerDocker.swarmInspect()) as { JoinTokens: { Worker: string } };
  await new Docker({ socketPath: node.socket }).swarmJoin({
    ListenAddr: `${node.address}:2377`,
    AdvertiseAddr: node.address,
    RemoteAddrs: [`${manager.address}:2377`],
    JoinToken: info.JoinTokens.Worker,
  });
  await labelNodes(
    managerDocker,
    swarm.nodes.filter((n) => n.region === region),
    options.extraLabels ?? {},
  );
  log(`node ${node.name} joined ${region} at ${node.address}`);
  return node;
}
