import { DEFAULT_RESOURCES } from '@berth/openapi/rules';
import {
  DEFAULT_RUNTIMES_DIR,
  N8N_INSTANCE_ENV,
  N8N_LEAN_ENV,
  N8N_VERSION,
  n8nNodeDir,
  n8nRuntimeDir,
} from '../apps/n8n/n8n-runtime.ts';
import type { Resources, SiteUrls } from '../engine.ts';
import { SERVICE_UIDS } from './image-recipes.ts';
import type { Region } from './region.ts';
import {
  type InstanceNames,
  LABEL,
  N8N_RUNTIME_LABEL,
  PIDS,
  resourcesSpec,
  seconds,
  sizeOf,
  tmpfsMount,
} from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import type { VolumeMount } from './volumes.ts';

// The service of an n8n instance on a swarm (n8n-engine.ts) and the environment n8n runs with.

/** n8n's user folder (its SQLite database, config and binary data), the instance's volume. */
export const N8N_DATA = '/data';

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
    N8N_USER_FOLDER: N8N_DATA,
    // The key is a Docker secret: n8n reads any setting from <NAME>_FILE.
    N8N_ENCRYPTION_KEY_FILE: '/run/secrets/encryption_key',
  };
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}

/** The service of an n8n instance: n8n as user n8n, the node's runtime bound read-only. */
export function n8nServiceSpec(
  ctx: SwarmContext,
  input: {
    names: InstanceNames;
    region: Region;
    nodeId: string;
    /** n8n's data folder: its volume, bound to its disk (volumes.ts). */
    data: VolumeMount;
    labels: Record<string, string>;
    resources: Resources | undefined;
    urls: SiteUrls;
    domain: string | null;
    secret: { SecretID: string; SecretName: string };
  },
) {
  const runtimesDir = ctx.options.runtimesDir ?? DEFAULT_RUNTIMES_DIR;
  const nodeDir = n8nNodeDir(runtimesDir);
  const uid = String(SERVICE_UIDS.n8n);
  const size = sizeOf(input.resources, DEFAULT_RESOURCES);
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
          input.data,
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
      Resources: resourcesSpec(size, PIDS.n8n),
      RestartPolicy: { Condition: 'any', Delay: seconds(2) },
      Placement: {
        Constraints: [
          `node.labels.region==${input.region.id}`,
          `node.id==${input.nodeId}`,
          `node.labels.${N8N_RUNTIME_LABEL}==${N8N_VERSION}`,
        ],
      },
      Networks: [{ Target: input.names.network }],
    },
    Mode: { Replicated: { Replicas: 1 } },
    UpdateConfig: { Parallelism: 1, Order: 'stop-first' },
    EndpointSpec: { Mode: 'dnsrr' },
  };
}
