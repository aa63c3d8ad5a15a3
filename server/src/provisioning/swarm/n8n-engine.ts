import path from 'node:path';
import { ValidationError } from '../../lib/errors.ts';
import type { InstanceEngine, N8nSpec, Resources, SiteUrls } from '../engine.ts';
import { unavailable } from '../instance-types.ts';
import { checkDomain } from '../local/front-door/domain-names.ts';
import {
  DEFAULT_RUNTIMES_DIR,
  N8N_INSTANCE_ENV,
  N8N_LEAN_ENV,
  n8nRuntimeDir,
} from '../local/n8n/n8n-runtime.ts';
import { instanceLabels } from './database-engine.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import { SERVICE_UIDS } from './image-recipes.ts';
import { choosePlacement, type Region } from './region.ts';
import {
  applyService,
  ensureNetwork,
  ensureSecret,
  type InstanceNames,
  instanceNames,
  LABEL,
  removeSecrets,
  resourcesSpec,
  scale,
  seconds,
  sizeOf,
  tmpfsMount,
  volumeMount,
  waitForRunning,
} from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
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

export const N8N_VERSION = '2.8.4';
const N8N_DEFAULTS: Resources = { memoryMb: 1024, cpus: 1 };
const RUNTIME_LABEL = 'berth.n8n-runtime';

/** n8n's owner password rules (its OwnerSetupRequestDto): 8–64 characters, a digit and a capital. */
function checkOwner(spec: N8nSpec): void {
  const p = spec.ownerPassword;
  if (p.length < 8 || p.length > 64 || !/\d/.test(p) || !/[A-Z]/.test(p)) {
    throw new ValidationError(
      'The n8n owner password must be 8 to 64 characters with at least one number and one capital letter',
    );
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(spec.ownerEmail))
    throw new ValidationError('The owner e-mail is not valid');
  if (spec.encryptionKey.length < 16) throw new ValidationError('The n8n encryption key is too short');
}

function n8nEnv(urls: SiteUrls, size: number): string[] {
  const url = new URL(urls.url);
  const env: Record<string, string> = {
    ...N8N_LEAN_ENV,
    ...N8N_INSTANCE_ENV,
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    BERTH_MEMORY_MB: String(size),
    N8N_PORT: '5678',
    N8N_LISTEN_ADDRESS: '0.0.0.0',
    N8N_HOST: url.hostname,
    N8N_PROTOCOL: url.protocol.replace(':', ''),
    N8N_EDITOR_BASE_URL: `${url.origin}/`,
    WEBHOOK_URL: `${url.origin}/`,
    N8N_USER_FOLDER: '/data',
    // The key is a Docker secret: n8n reads any setting from <NAME>_FILE.
    N8N_ENCRYPTION_KEY_FILE: '/run/secrets/encryption_key',
  };
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}

export function n8nEngine(ctx: SwarmContext, doors: SwarmFrontDoors): InstanceEngine<N8nSpec> {
  const runtimesDir = ctx.options.runtimesDir ?? DEFAULT_RUNTIMES_DIR;
  const nodeDir = path.join(runtimesDir, `node-${process.version.slice(1)}`);
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);
  const uid = String(SERVICE_UIDS.n8n);

  const stateOf = (id: string) => webState(ctx, id);
  const requireState = (id: string) => requireWebState(ctx, id, 'n8n instance');

  function spec(input: {
    names: InstanceNames;
    region: Region;
    nodeId: string;
    labels: Record<string, string>;
    resources: Resources | undefined;
    urls: SiteUrls;
    domain: string | null;
    secret: { SecretID: string; SecretName: string };
  }) {
    const size = sizeOf(input.resources, N8N_DEFAULTS);
    const bind = (source: string, target: string) => ({
      Type: 'bind' as const,
      Source: source,
      Target: target,
      ReadOnly: true,
    });
    return {
      Name: input.names.service,
      Labels: {
        ...input.labels,
        [LABEL.role]: 'app',
        [LABEL.node]: input.nodeId,
        [LABEL.slug]: input.names.slug,
        [LABEL.domain]: input.domain ?? '',
      },
      TaskTemplate: {
        ContainerSpec: {
          Image: ctx.image('n8n', 'n8n'),
          Command: ['/usr/local/bin/berth-n8n'],
          User: 'n8n',
          Env: n8nEnv(input.urls, size.memoryMb),
          Labels: { [LABEL.instance]: input.names.id },
          ReadOnly: true,
          Mounts: [
            volumeMount(input.names, 'data', '/data'),
            bind(n8nRuntimeDir(runtimesDir), '/opt/n8n'),
            bind(nodeDir, '/opt/node'),
            tmpfsMount('/tmp', 256),
          ],
          Secrets: [{ ...input.secret, File: { Name: 'encryption_key', UID: uid, GID: uid, Mode: 0o400 } }],
          HealthCheck: {
            Test: [
              'CMD',
              '/opt/node/node',
              '-e',
              "require('http').get('http://127.0.0.1:5678/healthz/readiness',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))",
            ],
            Interval: seconds(2),
            Timeout: seconds(5),
            Retries: 5,
            StartPeriod: seconds(300),
          },
          StopGracePeriod: seconds(15),
          CapabilityDrop: ['ALL'],
        },
        Resources: resourcesSpec(size),
        RestartPolicy: { Condition: 'any', Delay: seconds(2) },
        Placement: {
          Constraints: [
            `node.labels.region==${input.region.id}`,
            `node.id==${input.nodeId}`,
            `node.labels.${RUNTIME_LABEL}==${N8N_VERSION}`,
          ],
        },
        Networks: [{ Target: input.names.network }],
      },
      Mode: { Replicated: { Replicas: 1 } },
      UpdateConfig: { Parallelism: 1, Order: 'stop-first' },
      EndpointSpec: { Mode: 'dnsrr' },
    };
  }

  /** Waits until n8n's REST controllers answer through the front door (POST /rest/login {} → 400). */
  async function waitForN8n(region: Region, slug: string): Promise<string> {
    const host = new URL(doors.urls(region.id, slug, null).temporaryUrl).host;
    const deadline = Date.now() + 180_000;
    for (;;) {
      const { status, text } = await doors.request(region.id, host, 'POST', '/rest/login', {});
      if (status === 400 && text.includes('emailOrLdapLoginId')) return host;
      if (Date.now() > deadline) throw new Error(`n8n did not answer at ${host} (HTTP ${status})`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function apply(
    input: N8nSpec,
    existing: WebState | undefined,
    domain: string | null,
  ): Promise<SiteUrls> {
    const names = instanceNames(input.id);
    const region = existing?.region ?? ctx.region(input.region);
    const owner = input.owner ?? existing?.owner;
    const labels = instanceLabels(input.id, 'n8n', owner);
    const size = sizeOf(input.resources, N8N_DEFAULTS);
    const nodeId =
      existing?.nodeId ??
      (
        await choosePlacement(region, {
          memoryBytes: size.memoryBytes,
          nanoCpus: size.nanoCpus,
          labels: { [RUNTIME_LABEL]: N8N_VERSION },
          labelReason: `No server of this region has n8n ${N8N_VERSION} installed`,
        })
      ).ID;
    const urls = doors.urls(region.id, names.slug, domain);
    try {
      await ensureNetwork(region.manager, names, { internal: false, labels });
      await doors.connect(region.id, names.network);
      const secret = await ensureSecret(region.manager, names, 'encryption-key', input.encryptionKey, labels);
      const after = await applyService(
        region.manager,
        spec({ names, region, nodeId, labels, resources: input.resources, urls, domain, secret }),
      );
      await waitForRunning(region, names.service, { after, timeoutMs: 300_000 });
      await removeSecrets(region.manager, input.id, [secret.SecretName]);
      await doors.reload(region.id);
      const host = await waitForN8n(region, names.slug);
      if (!existing) {
        const { status, text } = await doors.request(region.id, host, 'POST', '/rest/owner/setup', {
          email: input.ownerEmail,
          firstName: input.ownerFirstName ?? input.ownerEmail.split('@')[0] ?? 'Owner',
          lastName: input.ownerLastName ?? 'Owner',
          password: input.ownerPassword,
        });
        const created = status === 200 && text.includes(`"email":${JSON.stringify(input.ownerEmail)}`);
        if (!created && !(status === 400 && /already setup/i.test(text))) {
          throw new Error(`n8n owner setup answered ${status}: ${text.slice(0, 300)}`);
        }
      }
      return urls;
    } catch (error) {
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
    async capability() {
      if (!ctx.started()) return unavailable.settingUp('n8n', 'The provisioning driver is not started');
      return { available: true };
    },
    deploy: (input) =>
      withLock(input.id, async () => {
        checkOwner(input);
        const existing = await stateOf(input.id);
        return { urls: await apply(input, existing, existing?.domain ?? null) };
      }),
    delete: (id) =>
      withLock(id, async () => {
        const state = await stateOf(id);
        if (state) await removeAll(state.region, id, state.nodeId);
        await ctx.backups.deleteAll(id);
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
        await waitForN8n(state.region, instanceNames(id).slug);
      }),
    domains: {
      set: (id, input) =>
        withLock(id, async () => {
          const state = await requireState(id);
          const domain = input === null ? null : checkDomain(input, ctx.options.baseDomain);
          const names = instanceNames(id);
          const urls = doors.urls(state.region.id, names.slug, domain);
          const secret = await secretOf(state.region, id, 'encryption-key');
          const after = await applyService(
            state.region.manager,
            spec({
              names,
              region: state.region,
              nodeId: state.nodeId,
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
          await waitForN8n(state.region, names.slug);
          return urls;
        }),
      ...certificateOps(ctx, doors, 'n8n instance'),
    },
  };
}
