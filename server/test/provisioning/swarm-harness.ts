import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startBerthSwarm } from '../../src/provisioning/swarm/local-berth-swarm.ts';
import { type LocalSwarm, stopLocalSwarm } from '../../src/provisioning/swarm/local-swarm.ts';
import { createSwarmDriver, type SwarmDriver } from '../../src/provisioning/swarm/swarm-driver.ts';
import { runCommand } from './site-clients.ts';

/**
 * A real two-region swarm for a test file (local-swarm.ts: us-east-1 with a manager and a worker,
 * eu-west-1 with a manager, each a dockerd in its own network namespace), its own names and subnet, the
 * images imported from the host's cache, and a swarm driver against it. Never skips: without root or
 * the packages it fails naming what is missing.
 */

const NEEDED: Record<string, string> = {
  '/usr/sbin/dockerd': 'docker.io',
  '/usr/sbin/debootstrap': 'debootstrap',
  '/usr/sbin/iptables': 'iptables',
  '/usr/bin/curl': 'curl',
  '/usr/bin/mariadb': 'mariadb-client',
  '/usr/bin/psql': 'postgresql-client',
};

/** What the tests read of `docker service inspect`. */
export interface InspectedService {
  Spec: {
    Labels?: Record<string, string>;
    TaskTemplate: {
      Resources: {
        Limits: { MemoryBytes: number; NanoCPUs: number; Pids?: number };
        Reservations: { MemoryBytes: number; NanoCPUs: number };
      };
      Placement: { Constraints: string[] };
      ContainerSpec: {
        Env?: string[];
        Secrets?: { File: { Name: string } }[];
        CapabilityDrop?: string[];
        CapabilityAdd?: string[];
        ReadOnly?: boolean;
        Mounts?: {
          Type: string;
          Source: string;
          Target: string;
          VolumeOptions?: { DriverConfig?: { Name: string; Options?: Record<string, string> } };
        }[];
      };
      Networks?: { Target: string }[];
    };
  };
}

export interface SwarmHarness {
  swarm: LocalSwarm;
  driver: SwarmDriver;
  backupsDir: string;
  /** This host's address as the nodes see it (where Berth itself answers them). */
  hostAddress: string;
  /** The volumes' sizes the driver was given (small, so that filling one is quick). */
  disks: typeof DISKS;
  /** How long a backup may make no progress before it fails (short, so that a stall shows quickly). */
  backupStallMs: number;
  /** The docker CLI against one node's engine. */
  docker(node: string, ...args: string[]): Promise<string>;
  /**
   * A service as `docker service inspect` shows it (on the region's manager `manager`), the short name of
   * the node its task runs on (use1-m, use1-w, euw1-m) and that node's labels.
   */
  inspect(
    manager: string,
    service: string,
  ): Promise<{ spec: InspectedService; node: string; nodeLabels: Record<string, string> }>;
  /** The id of the container of `service` on the local node `node`. */
  containerOf(node: string, service: string): Promise<string>;
  /** The root certificate of the front door's internal CA on manager `node`, written to `file`. */
  frontDoorCa(node: string, file: string): Promise<string>;
  stop(): Promise<void>;
}

const DISKS = { wordpress: 256, wordpressDatabase: 128, mysql: 256, postgresql: 256, n8n: 512 };
const BACKUP_STALL_MS = 15_000;

export async function startSwarmHarness(log: (line: string) => void = () => {}): Promise<SwarmHarness> {
  const missing = Object.entries(NEEDED).filter(([file]) => !existsSync(file));
  if (process.getuid?.() !== 0 || missing.length > 0) {
    throw new Error(
      `The swarm tests run as root with ${Object.values(NEEDED).join(' ')}; missing: ${missing.map(([, p]) => p).join(' ') || 'root'} (apt-get install -y --no-install-recommends ${Object.values(NEEDED).join(' ')})`,
    );
  }
  // Names and a subnet of this process's own, so that two runs at once never meet.
  const tag = (process.pid % 10_000).toString(36);
  const root = await mkdtemp('/tmp/berth-swarm-test-');
  const subnet = 100 + (process.pid % 150);
  const swarm = await startBerthSwarm({ name: `bt${tag}`, subnet, root, log });
  const backupsDir = path.join(root, 'backups');
  const driver = createSwarmDriver({
    regions: Object.fromEntries(Object.entries(swarm.regions).map(([id, endpoint]) => [id, { endpoint }])),
    baseDomain: 'sites.test',
    backupsDir,
    disks: DISKS,
    backupStallMs: BACKUP_STALL_MS,
    // A node down for half a minute is lost (60 s in production): its instances come back elsewhere.
    nodeLostAfterMs: 30_000,
    // The SFTP gateway on a free port of this host (customers: 127.0.0.1).
    sftp: {
      listenHost: '127.0.0.1',
      port: 0,
      publicHost: '127.0.0.1',
      hostKeyFile: path.join(root, 'sftp_host_key'),
    },
    log,
  });
  await driver.start();
  const docker = async (nodeName: string, ...args: string[]) => {
    const node = swarm.nodes.find((n) => n.name === nodeName);
    if (!node) throw new Error(`no node ${nodeName}`);
    const result = await runCommand('/usr/bin/docker', ['-H', node.endpoint, ...args], {
      timeoutMs: 120_000,
    });
    if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  return {
    swarm,
    driver,
    backupsDir,
    hostAddress: `10.231.${subnet}.1`,
    disks: DISKS,
    backupStallMs: BACKUP_STALL_MS,
    docker,
    async inspect(manager, service) {
      const spec = (
        JSON.parse(await docker(manager, 'service', 'inspect', service)) as InspectedService[]
      )[0];
      if (!spec) throw new Error(`no service ${service}`);
      const hostname =
        (
          await docker(
            manager,
            'service',
            'ps',
            service,
            '--filter',
            'desired-state=running',
            '--format',
            '{{.Node}}',
          )
        ).split('\n')[0] ?? '';
      const nodeLabels = JSON.parse(
        await docker(manager, 'node', 'inspect', hostname, '--format', '{{json .Spec.Labels}}'),
      ) as Record<string, string>;
      // Host names are <swarm name>-<node>: bt1cn-use1-w.
      return { spec, node: hostname.replace(/^bt[a-z0-9]+-/, ''), nodeLabels };
    },
    async containerOf(node, service) {
      const id = await docker(node, 'ps', '-q', '--filter', `label=com.docker.swarm.service.name=${service}`);
      if (!id) throw new Error(`no container of ${service} on ${node}`);
      return id.split('\n')[0] ?? '';
    },
    async frontDoorCa(node, file) {
      const pem = await docker(
        node,
        'exec',
        '-u',
        'caddy',
        'berth-front-door',
        'cat',
        '/data/data/caddy/pki/authorities/local/root.crt',
      );
      await writeFile(file, `${pem}\n`);
      return file;
    },
    async stop() {
      await driver.stop();
      await stopLocalSwarm(root, log);
      await rm(root, { recursive: true, force: true });
    },
  };
}
