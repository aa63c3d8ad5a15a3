import { DEFAULT_RESOURCES } from '@berth/openapi/rules';
import type { Resources, SiteSpec, SiteUrls } from '../engine.ts';
import { SERVICE_UIDS } from './image-recipes.ts';
import type { Region } from './region.ts';
import {
  type InstanceNames,
  LABEL,
  PIDS,
  resourcesSpec,
  type ServiceInfo,
  seconds,
  sizeOf,
  tmpfsMount,
} from './services.ts';
import { SFTP_LABEL } from './site-sftp.ts';
import type { SwarmContext } from './swarm-context.ts';
import type { VolumeMount } from './volumes.ts';
import { appResources, type WebState } from './web-instance.ts';

// The app service of a WordPress site on a swarm (wordpress-engine.ts): its spec, and the site's spec read
// back from it.

export const SITE_DB: Resources = { memoryMb: 256, cpus: 0.25 };
export const WP_ROOT = '/var/www/wordpress';
const WWW = String(SERVICE_UIDS['www-data']);

/** The app service's environment value `name` (what it was deployed with). */
function envOf(service: ServiceInfo, name: string) {
  const template = service.Spec.TaskTemplate;
  const env = template && 'ContainerSpec' in template ? (template.ContainerSpec?.Env ?? []) : [];
  return env.find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** The app service of a site: Apache with mod_php as www-data, WordPress core read-only. */
export function wordpressAppSpec(
  ctx: SwarmContext,
  input: {
    names: InstanceNames;
    region: Region;
    nodeId: string;
    /** wp-content: the site's volume, bound to its disk (volumes.ts). */
    content: VolumeMount;
    labels: Record<string, string>;
    spec: Pick<SiteSpec, 'title' | 'adminUser' | 'adminEmail' | 'resources'>;
    urls: SiteUrls;
    domain: string | null;
    /** The hash of its SFTP password (site-sftp.ts), kept on the service. */
    sftpHash: string | undefined;
    secrets: Record<string, { SecretID: string; SecretName: string }>;
  },
) {
  const size = sizeOf(input.spec.resources, DEFAULT_RESOURCES);
  return {
    Name: input.names.service,
    Labels: {
      ...input.labels,
      [LABEL.role]: 'app',
      [LABEL.node]: input.nodeId,
      [LABEL.slug]: input.names.slug,
      [LABEL.domain]: input.domain ?? '',
      ...(input.sftpHash ? { [SFTP_LABEL]: input.sftpHash } : {}),
    },
    TaskTemplate: {
      ContainerSpec: {
        Image: ctx.image('wordpress', 'wordpress'),
        Command: ['/usr/local/bin/berth-wordpress'],
        User: 'www-data',
        Env: [
          `BERTH_DB_HOST=${input.names.dbService}:3306`,
          `BERTH_SITE_URL=${input.urls.url}`,
          `BERTH_TEMPORARY_URL=${input.urls.temporaryUrl}`,
          `BERTH_SITE_TITLE=${input.spec.title}`,
          `BERTH_ADMIN_USER=${input.spec.adminUser}`,
          `BERTH_ADMIN_EMAIL=${input.spec.adminEmail}`,
        ],
        Labels: { [LABEL.instance]: input.names.id },
        // WordPress core and the system are read-only; the site writes only its volume and tmpfs.
        ReadOnly: true,
        Mounts: [input.content, tmpfsMount('/tmp', 128)],
        Secrets: Object.entries(input.secrets).map(([name, secret]) => ({
          ...secret,
          File: { Name: name, UID: WWW, GID: WWW, Mode: 0o400 },
        })),
        HealthCheck: {
          Test: [
            'CMD',
            'php',
            '-r',
            'exit(@file_get_contents("http://127.0.0.1:8080/.berth-health") === "ok\\n" ? 0 : 1);',
          ],
          Interval: seconds(1),
          Timeout: seconds(5),
          Retries: 5,
          StartPeriod: seconds(180),
        },
        StopGracePeriod: seconds(10),
        CapabilityDrop: ['ALL'],
      },
      Resources: resourcesSpec(size, PIDS.wordpress),
      RestartPolicy: { Condition: 'any', Delay: seconds(2) },
      Placement: { Constraints: [`node.labels.region==${input.region.id}`, `node.id==${input.nodeId}`] },
      Networks: [{ Target: input.names.network }],
    },
    Mode: { Replicated: { Replicas: 1 } },
    UpdateConfig: { Parallelism: 1, Order: 'stop-first' },
    EndpointSpec: { Mode: 'dnsrr' },
  };
}

/** The deployed spec again, from the app service (a domain change keeps everything else). */
export function specOf(id: string, state: WebState): SiteSpec {
  return {
    id,
    owner: state.owner,
    title: envOf(state.app, 'BERTH_SITE_TITLE') ?? '',
    adminUser: envOf(state.app, 'BERTH_ADMIN_USER') ?? '',
    adminEmail: envOf(state.app, 'BERTH_ADMIN_EMAIL') ?? '',
    adminPassword: '',
    phpVersion: '8.2',
    resources: appResources(state.app),
  };
}
