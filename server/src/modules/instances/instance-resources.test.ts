import { cpuChoice, memoryChoice } from '@berth/openapi/rules';
import { describe, expect, it } from 'vitest';
import type { UsageCapability } from '../../provisioning/usage.ts';
import { checkResources, resourcesOf } from './instance-resources.ts';

const GIB = 1024 ** 3;
/** A driver on a host of `memoryGb` and `cpus`. */
const host = (memoryGb: number, cpus: number): { usage: UsageCapability } => ({
  usage: {
    sample: async () => [],
    limits: () => ({ sharedServer: false, limits: [] }),
    capacity: async () => ({
      memoryBytes: memoryGb * GIB,
      cpus,
      diskBytes: 100 * GIB,
      diskFreeBytes: 50 * GIB,
      enforcement: 'cgroup v2',
    }),
  },
});

describe('instance resources', () => {
  it('reads the choices in any spelling, and nothing else', () => {
    expect(memoryChoice('4096MB')).toBe('4GB');
    expect(memoryChoice(' 1gb ')).toBe('1GB');
    expect(memoryChoice('3GB')).toBeUndefined();
    expect(cpuChoice('2.0')).toBe('2');
    expect(cpuChoice('.5')).toBe('0.5');
    expect(cpuChoice('')).toBeUndefined();
    expect(resourcesOf('512MB', '0.5')).toEqual({ memoryMb: 512, cpus: 0.5 });
  });

  it('refuses what a type cannot run with and what the host does not have, with the reason', async () => {
    await expect(checkResources(host(24, 2), 'n8n', '512MB', '1')).rejects.toThrow(
      'n8n needs at least 1GB of memory and 0.5 vCPU',
    );
    await expect(checkResources(host(24, 2), 'n8n', '1GB', '0.25')).rejects.toThrow('n8n needs at least');
    await expect(checkResources(host(24, 2), 'n8n', '1GB', '0.5')).resolves.toBeUndefined();
    await expect(checkResources(host(2, 4), 'wordpress', '4GB', '1')).rejects.toThrow(
      'This server cannot give an instance 4GB of memory (it has 2.0 GB in all)',
    );
    await expect(checkResources(host(24, 1), 'mysql', '1GB', '2')).rejects.toThrow(
      'This server cannot give an instance 2 vCPU (it has 1 in all)',
    );
    // A driver that measures nothing: the choices alone decide.
    await expect(checkResources({}, 'mysql', '4GB', '2')).resolves.toBeUndefined();
  });
});
