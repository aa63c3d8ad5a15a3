import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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

export interface SwarmHarness {
  swarm: LocalSwarm;
  driver: SwarmDriver;
  backupsDir: string;
  /** The docker CLI against one node's engine. */
  docker(node: string, ...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

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
  const swarm = await startBerthSwarm({ name: `bt${tag}`, subnet: 100 + (process.pid % 150), root, log });
  const backupsDir = path.join(root, 'backups');
  const driver = createSwarmDriver({
    regions: Object.fromEntries(Object.entries(swarm.regions).map(([id, endpoint]) => [id, { endpoint }])),
    baseDomain: 'sites.test',
    backupsDir,
    log,
  });
  await driver.start();
  return {
    swarm,
    driver,
    backupsDir,
    async docker(nodeName, ...args) {
      const node = swarm.nodes.find((n) => n.name === nodeName);
      if (!node) throw new Error(`no node ${nodeName}`);
      const result = await runCommand('/usr/bin/docker', ['-H', node.endpoint, ...args], {
        timeoutMs: 120_000,
      });
      if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
      return result.stdout.trim();
    },
    async stop() {
      await driver.stop();
      await stopLocalSwarm(root, log);
      await rm(root, { recursive: true, force: true });
    },
  };
}
