import { DEFAULT_RESOURCES } from '@berth/openapi/rules';
import { checkN8nOwner } from '../apps/n8n/n8n-owner.ts';
import { N8N_VERSION } from '../apps/n8n/n8n-runtime.ts';
import { featuresOf, type InstanceEngine, type N8nSpec, type SiteUrls } from '../engine.ts';
import { checkDomain } from '../front-door/domain-names.ts';
import { unavailable } from '../instance-types.ts';
import { instanceLabels } from './database-engine.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import { n8nBackups } from './n8n-backups.ts';
import { N8N_DATA, n8nServiceSpec } from './n8n-service.ts';
import { setUpOwner, waitForN8n } from './n8n-web.ts';
import { placeInstance } from './node-agent.ts';
import type { Region } from './region.ts';
import {
  applyService,
  ensureNetwork,
  ensureSecret,
  instanceNames,
  N8N_RUNTIME_LABEL,
  removeSecrets,
  scale,
  sizeOf,
  waitForRunning,
} from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import {
  instanceDiskBytes,
  sizedVolume,
  volumeMount,
  volumeNode,
  volumeSizeMb,
  volumeStorage,
} from './volumes.ts';
import {
  appResources,
  certificateOps,
  removeWebInstance,
  requireWebState,
  secretOf,
  type WebState,
  webState,
} from './web-instance.ts';

/**
 * n8n on a swarm: one service per instance, as user n8n, its data (SQLite and config) on a volume of the
 * node it was first placed on, its encryption key a Docker secret (N8N_ENCRYPTION_KEY_FILE). n8n itself
 * is not in the image: the node's own runtime (2.3 GB, installed once per host by `npm run install-n8n`,
 * like for the local driver) and Node binary are bound read-only. Baking them into the image would make
 * a 2.5 GB image to copy to every node on every n8n upgrade; binding costs one install per node, and
 * nodes that have it carry the label `berth.n8n-runtime=<version>`, which placement requires.
 *
 * Its network is its own overlay with a way out (workflows call the internet), shared only with the
 * region's front door; the node's DOCKER-USER rule keeps it from the cloud metadata address.
 */

export function n8nEngine(ctx: SwarmContext, doors: SwarmFrontDoors): InstanceEngine<N8nSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  const stateOf = (id: string) => webState(ctx, id);
  const requireState = (id: string) => requireWebState(ctx, id, 'n8n instance');

  async function apply(
    input: N8nSpec,
    existing: WebState | undefined,
    domain: string | null,
  ): Promise<SiteUrls> {
    const names = instanceNames(input.id);
    const region = existing?.region ?? ctx.region(input.region);
    const owner = input.owner ?? existing?.owner;
    const labels = instanceLabels(input.id, 'n8n', owner);
    const size = sizeOf(input.resources, DEFAULT_RESOURCES);
    const nodeId =
      existing?.nodeId ??
      (
        await placeInstance(
          ctx,
          region,
          {
            memoryBytes: size.memoryBytes,
            nanoCpus: size.nanoCpus,
            diskBytes: instanceDiskBytes(ctx.options.disks, 'n8n'),
            labels: { [N8N_RUNTIME_LABEL]: N8N_VERSION },
            labelReason: `No server of this region has n8n ${N8N_VERSION} installed`,
          },
          input.id,
        )
      ).ID;
    const urls = doors.urls(region.id, names.slug, domain, 'n8n');
    try {
      await ensureNetwork(region.manager, names, {
        internal: false,
        labels,
        encrypted: ctx.options.encryptedOverlays ?? false,
      });
      await doors.connect(region.id, names.network);
      const secret = await ensureSecret(region.manager, names, 'encryption-key', input.encryptionKey, labels);
      const data = await sizedVolume(
        region,
        await volumeNode(region, nodeId),
        names,
        'data',
        N8N_DATA,
        volumeSizeMb(ctx.options.disks, 'n8n', 'data'),
      );
      const after = await applyService(
        region.manager,
        n8nServiceSpec(ctx, {
          names,
          region,
          nodeId,
          data,
          labels,
          resources: input.resources,
          urls,
          domain,
          secret,
        }),
      );
      await waitForRunning(region, names.service, { after, timeoutMs: 300_000 });
      ctx.promises.delete(input.id);
      await removeSecrets(region.manager, input.id, [secret.SecretName]);
      await doors.reload(region.id);
      const host = await waitForN8n(doors, region, names.slug);
      if (!existing) await setUpOwner(doors, region, host, input);
      return urls;
    } catch (error) {
      ctx.promises.delete(input.id);
      // A first deploy that cannot run leaves nothing behind (a retry starts over); a failed clean-up is
      // logged, and the deploy's own error is what the job reports.
      if (!existing) {
        await removeAll(region, input.id, nodeId).catch((cleanup: Error) =>
          ctx.log(`clean-up after a failed deploy of ${input.id}: ${cleanup.message}`),
        );
      }
      throw error;
    }
  }

  const removeAll = (region: Region, id: string, nodeId: string | undefined) => {
    const names = instanceNames(id);
    return removeWebInstance(doors, region, id, nodeId, {
      services: [names.service],
      volumes: [names.volume('data')],
    });
  };

  return {
    type: 'n8n',
    features: featuresOf('n8n'),
    async capability() {
      if (!ctx.started()) return unavailable.settingUp('n8n', 'The provisioning driver is not started');
      return { available: true };
    },
    deploy: (input) =>
      withLock(input.id, async () => {
        checkN8nOwner(input);
        const existing = await stateOf(input.id);
        return { urls: await apply(input, existing, existing?.domain ?? null) };
      }),
    delete: (id) =>
      withLock(id, async () => {
        const state = await stateOf(id);
        if (state) await removeAll(state.region, id, state.nodeId);
        await ctx.deleteLegacyBackups(id);
      }),
    suspend: (id) =>
      withLock(id, async () => {
        const state = await requireState(id);
        await scale(state.region.manager, instanceNames(id).service, 0);
        await doors.reload(state.region.id);
      }),
    resume: (id) =>
      withLock(id, async () => {
        const state = await requireState(id);
        await scale(state.region.manager, instanceNames(id).service, 1);
        await waitForRunning(state.region, instanceNames(id).service, { timeoutMs: 300_000 });
        await doors.reload(state.region.id);
        await waitForN8n(doors, state.region, instanceNames(id).slug);
      }),
    domains: {
      set: (id, input) =>
        withLock(id, async () => {
          const state = await requireState(id);
          const domain = input === null ? null : checkDomain(input, ctx.options.baseDomain);
          const names = instanceNames(id);
          const urls = doors.urls(state.region.id, names.slug, domain, 'n8n');
          const secret = await secretOf(state.region, id, 'encryption-key');
          const after = await applyService(
            state.region.manager,
            n8nServiceSpec(ctx, {
              names,
              region: state.region,
              nodeId: state.nodeId,
              data: volumeMount(await volumeNode(state.region, state.nodeId), names, 'data', N8N_DATA),
              labels: instanceLabels(id, 'n8n', state.owner),
              resources: appResources(state.app),
              urls,
              domain,
              secret,
            }),
          );
          await waitForRunning(state.region, names.service, { after, timeoutMs: 300_000 });
          if (state.domain && state.domain !== domain)
            await doors.removeCertificates(state.region.id, state.domain);
          await doors.reload(state.region.id);
          await waitForN8n(doors, state.region, names.slug);
          return urls;
        }),
      ...certificateOps(ctx, doors, 'n8n instance'),
    },
    storage: { usage: (id) => volumeStorage(ctx, id, 'data') },
    backups: n8nBackups(ctx, doors, requireState),
  };
}
