import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { DomainCapability } from '../engine.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import type { Region } from './region.ts';
import {
  instanceNames,
  LABEL,
  removeNetwork,
  removeSecrets,
  removeService,
  type ServiceInfo,
} from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import { removeVolumes } from './volumes.ts';

/**
 * What sites and n8n instances share on a swarm: where one is (its app service's labels say its node,
 * domain and owner), its removal (services, the front door's link to its network, the network, volumes,
 * secrets), and the certificate half of its custom domain.
 */

export interface WebState {
  region: Region;
  /** The service the front door routes to (the site's web server, n8n). */
  app: ServiceInfo;
  nodeId: string;
  domain: string | null;
  owner: string | undefined;
}

export async function webState(ctx: SwarmContext, id: string): Promise<WebState | undefined> {
  const found = await ctx.locate(id);
  if (!found) return undefined;
  const labels = found.service.Spec.Labels ?? {};
  return {
    region: found.region,
    app: found.service,
    nodeId: labels[LABEL.node] ?? '',
    domain: labels[LABEL.domain] || null,
    owner: labels[LABEL.owner],
  };
}

export async function requireWebState(ctx: SwarmContext, id: string, what: string): Promise<WebState> {
  const state = await webState(ctx, id);
  if (!state) throw new NotFoundError(`${what} not found`);
  return state;
}

/** The memory and CPU the app service was given (a domain change deploys it again with them). */
export function appResources(app: ServiceInfo) {
  const limits = app.Spec.TaskTemplate?.Resources?.Limits;
  return limits
    ? { memoryMb: (limits.MemoryBytes ?? 0) / 1024 / 1024, cpus: (limits.NanoCPUs ?? 0) / 1e9 }
    : undefined;
}

/** The instance's secret of `role` as a service names it (its content stays in the swarm). */
export async function secretOf(region: Region, id: string, role: string) {
  const secret = (
    await region.manager.listSecrets({
      filters: { label: [`${LABEL.instance}=${id}`, `${LABEL.role}=${role}`] },
    })
  )[0];
  return { SecretID: secret?.ID ?? '', SecretName: secret?.Spec?.Name ?? '' };
}

/** Removes everything of a web instance; its front door forgets it. */
export async function removeWebInstance(
  doors: SwarmFrontDoors,
  region: Region,
  id: string,
  nodeId: string | undefined,
  parts: { services: string[]; volumes: string[] },
): Promise<void> {
  const names = instanceNames(id);
  for (const service of parts.services) await removeService(region.manager, service);
  await doors.disconnect(region.id, names.network);
  await removeNetwork(region.manager, names.network);
  await removeVolumes(region, nodeId, parts.volumes);
  await removeSecrets(region.manager, id);
  await doors.reload(region.id).catch(() => {});
}

/** Certificate status and re-issue of a web instance's custom domain. */
export function certificateOps(
  ctx: SwarmContext,
  doors: SwarmFrontDoors,
  what: string,
): Pick<DomainCapability, 'sslStatus' | 'requestSsl'> {
  return {
    async sslStatus(id) {
      const state = await requireWebState(ctx, id, what);
      return state.domain ? doors.sslStatus(state.region.id, state.domain) : null;
    },
    requestSsl: (id) =>
      ctx.lock(`instance:${id}`, async () => {
        const state = await requireWebState(ctx, id, what);
        if (!state.domain) throw new ValidationError(`The ${what.toLowerCase()} has no custom domain`);
        await doors.removeCertificates(state.region.id, state.domain);
        await doors.reload(state.region.id);
        return doors.sslStatus(state.region.id, state.domain);
      }),
  };
}
