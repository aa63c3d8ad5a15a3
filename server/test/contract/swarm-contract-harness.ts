import { existsSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RegionId } from '@berth/openapi/rules';
import { instanceNames } from '../../src/provisioning/swarm/services.ts';
import type { SwarmHarness } from '../provisioning/swarm-harness.ts';
import type { ContractHarness } from './harness.ts';

/** A database server's own files on top of the data it was sold (the swarm driver's volumes.ts). */
const SERVER_FILES_MB = { mariadb: 192, postgres: 64 };

/**
 * The swarm driver under the contract, on a local swarm a test file started already (`h()`: the contract
 * shares it, and never stops it). Its region is us-east-1 (two nodes: the contract's instances take
 * about 3.5 vCPU, more than one node of this 2-core host has); its instances are deleted by its last rows.
 * Customers reach sites at the region manager's address (ports 80 and 443); custom domains' certificates
 * come from the front door's own CA, read from its container.
 */
export function swarmContractHarness(h: () => SwarmHarness, region: RegionId = 'us-east-1'): ContractHarness {
  return {
    label: 'swarm',
    async start() {
      const swarm = h();
      const manager = swarm.swarm.nodes.find((node) => node.region === region && node.role === 'manager');
      if (!manager) throw new Error(`the local swarm has no manager in ${region}`);
      const work = await mkdtemp('/tmp/berth-swarm-contract-');
      const logs: string[] = [];
      return {
        driver: swarm.driver,
        region,
        frontDoor: manager.address,
        domainCa: () => swarm.frontDoorCa(manager.name, path.join(work, 'front-door-ca.pem')),
        diskMb: {
          wordpress: swarm.disks.wordpress,
          mysql: swarm.disks.mysql + SERVER_FILES_MB.mariadb,
          postgresql: swarm.disks.postgresql + SERVER_FILES_MB.postgres,
          n8n: swarm.disks.n8n,
        },
        // A site's SFTP login starts in the site as it is served (wp-content its writable part).
        siteFile: (urlPath) => urlPath.slice(1),
        // What a session's helper container holds besides the site's files (the image's system).
        privatePaths: ['/etc/shadow', '/etc/gshadow', '/run/secrets', '/var/lib/docker'],
        log: () => logs.join('\n'),
        async stop() {},

        async leftovers(id) {
          const names = instanceNames(id);
          const label = `label=berth.instance=${id}`;
          const left: string[] = [];
          const managers = swarm.swarm.nodes.filter((node) => node.role === 'manager');
          for (const node of managers) {
            for (const kind of ['service', 'secret', 'network'] as const) {
              const found = await swarm.docker(node.name, kind, 'ls', '-q', '--filter', label);
              if (found) left.push(`${node.name} ${kind}: ${found.split('\n').join(' ')}`);
            }
          }
          for (const node of swarm.swarm.nodes) {
            const volumes = await swarm
              .docker(node.name, 'volume', 'ls', '-q', '--filter', label)
              .catch(() => '');
            if (volumes) left.push(`${node.name} volume: ${volumes.split('\n').join(' ')}`);
            // The disks Berth's agent made for its volumes (this host's folders: the nodes share it).
            const root = path.join(node.dir, 'volumes');
            if (existsSync(root)) {
              for (const entry of await readdir(root)) {
                if (entry.startsWith(`berth-${names.key}`)) left.push(`${node.name} disk: ${entry}`);
              }
            }
          }
          return left;
        },
      };
    },
  };
}
