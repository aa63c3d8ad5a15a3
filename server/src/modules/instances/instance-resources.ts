import { memoryMbOf, resourcesProblem } from '@berth/openapi/rules';
import { ValidationError } from '../../lib/errors.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { Resources } from '../../provisioning/engine.ts';
import type { InstanceType } from '../../provisioning/instance-types.ts';

const GIB = 1024 ** 3;

/** '512MB', '4GB' and '0.5', '2' (the row's or the request's) as MiB and vCPUs; undefined when unreadable. */
export function resourcesOf(memory: string, cpu: string): Resources | undefined {
  const memoryMb = memoryMbOf(memory);
  const cpus = Number(cpu);
  return memoryMb && cpus > 0 ? { memoryMb, cpus } : undefined;
}

/**
 * Refuses (400) what an instance of `type` cannot run with (below its type's least) or what no machine of
 * the driver has (more memory or vCPUs than the host). The choices themselves are the request schema's.
 */
export async function checkResources(
  driver: Pick<ProvisioningDriver, 'usage'>,
  type: InstanceType,
  memory: string,
  cpu: string,
): Promise<void> {
  const resources = resourcesOf(memory, cpu);
  if (!resources) throw new ValidationError('Please choose the memory and CPU of the instance');
  const problem = resourcesProblem(type, resources.memoryMb, resources.cpus);
  if (problem) throw new ValidationError(problem);
  const host = await driver.usage?.capacity().catch(() => undefined);
  if (!host) return;
  if (resources.memoryMb * 1024 * 1024 > host.memoryBytes) {
    throw new ValidationError(
      `This server cannot give an instance ${memory} of memory (it has ${(host.memoryBytes / GIB).toFixed(1)} GB in all)`,
    );
  }
  if (resources.cpus > host.cpus) {
    throw new ValidationError(`This server cannot give an instance ${cpu} vCPU (it has ${host.cpus} in all)`);
  }
}
