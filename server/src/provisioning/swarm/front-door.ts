import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import type { SiteUrls, SslStatus } from '../engine.ts';
import { buildCaddyConfig, type CaddySite, proxyTo } from '../front-door/caddy-config.ts';
import { sslStatusOf } from '../front-door/ssl-probe.ts';
import {
  ADMIN,
  CONTAINER,
  ensureFrontDoorContainer,
  frontDoorContainer,
  loadCaddyConfig,
} from './front-door-container.ts';
import { requestThrough } from './front-door-http.ts';
import { execIn } from './node-exec.ts';
import type { Region } from './region.ts';
import { instanceNames, LABEL, type ServiceInfo } from './services.ts';
import { listNodes, statusOf, unlessMissing } from './swarm-api.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * Each region's front door: Caddy (as `caddy`, never root) in a container on the region's manager node,
 * publishing the HTTP and HTTPS ports there. It reaches sites and n8n instances over their own overlay
 * networks, which it joins one by one (`docker network connect`; the instances never share a network
 * with each other), by their service names (dnsrr: this kernel has no IPVS for virtual IPs). Its
 * configuration is built from the region's services (their labels: slug, domain; replicas 0 = suspended)
 * with the local driver's builder and loaded through Caddy's admin API inside the container (`caddy
 * reload`, graceful); certificates (internal CA or ACME) live in its volume.
 */

const WEB_TYPES = ['wordpress', 'n8n'];

export interface SwarmFrontDoors {
  /** Starts (or adopts) the region's front door and loads it. */
  start(regionId: string): Promise<void>;
  /** Loads the region's front door with its current sites (after any change). */
  reload(regionId: string): Promise<void>;
  /** Joins the front door to an instance's network (before its route is loaded). */
  connect(regionId: string, network: string): Promise<void>;
  disconnect(regionId: string, network: string): Promise<void>;
  /** Where an instance answers; its admin page is WordPress' wp-admin, or n8n's editor at its root. */
  urls(regionId: string, slug: string, domain: string | null, type: 'wordpress' | 'n8n'): SiteUrls;
  /** Where the front door answers, as seen from the platform: the manager node's address. */
  address(regionId: string): Promise<string>;
  /** Resolves when `path` on the site's temporary host answers one of `statuses` through the front door. */
  waitFor(
    regionId: string,
    slug: string,
    path: string,
    statuses: number[],
    timeoutMs?: number,
  ): Promise<void>;
  request(
    regionId: string,
    host: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; text: string }>;
  sslStatus(regionId: string, domain: string): Promise<SslStatus>;
  removeCertificates(regionId: string, domain: string): Promise<void>;
}

export function swarmFrontDoors(ctx: SwarmContext): SwarmFrontDoors {
  const { httpPort, httpsPort } = ctx.options;
  const region = (id: string) => ctx.region(id);
  const temporaryHost = (regionId: string, slug: string) => `${slug}.${regionId}.${ctx.options.baseDomain}`;
  const suffix = (port: number, standard: number) => (port === standard ? '' : `:${port}`);

  async function managerNodeAddress(r: Region): Promise<string> {
    const info = (await r.manager.info()) as { Swarm?: { NodeID?: string; NodeAddr?: string } };
    const node = (await listNodes(r.manager)).find((n) => n.ID === info.Swarm?.NodeID);
    return node ? r.publicAddress(node) : (info.Swarm?.NodeAddr ?? '127.0.0.1');
  }

  async function webServices(r: Region): Promise<ServiceInfo[]> {
    const services = (await r.manager.listServices({
      filters: { label: [LABEL.instance] },
    })) as ServiceInfo[];
    return services.filter(
      (s) => WEB_TYPES.includes(s.Spec.Labels?.[LABEL.type] ?? '') && s.Spec.Labels?.[LABEL.role] === 'app',
    );
  }

  function siteOf(regionId: string, service: ServiceInfo): CaddySite {
    const labels = service.Spec.Labels ?? {};
    const port = labels[LABEL.type] === 'n8n' ? 5678 : 8080;
    return {
      id: labels[LABEL.instance] ?? service.ID,
      temporaryHost: temporaryHost(regionId, labels[LABEL.slug] ?? ''),
      domain: labels[LABEL.domain] || null,
      suspended: service.Spec.Mode?.Replicated?.Replicas === 0,
      handler: proxyTo(`${service.Spec.Name}:${port}`),
    };
  }

  const doors: SwarmFrontDoors = {
    async start(regionId) {
      await ensureFrontDoorContainer(ctx, region(regionId));
      await doors.reload(regionId);
    },

    reload: (regionId) =>
      ctx.lock(`front-door:${regionId}`, async () => {
        const r = region(regionId);
        const services = await webServices(r);
        for (const service of services) {
          const id = service.Spec.Labels?.[LABEL.instance];
          if (id) await doors.connect(regionId, instanceNames(id).network);
        }
        const config = buildCaddyConfig(
          {
            adminListen: ADMIN,
            listenHost: '0.0.0.0',
            httpPort,
            httpsPort,
            tls: ctx.options.tls ?? { issuer: 'internal' },
            // On the container's stdout, which the usage sampler reads (usage.ts).
            accessLog: 'stdout',
          },
          services.map((service) => siteOf(regionId, service)),
        );
        // Caddy's own CLI talks to its admin API inside the container; it keeps the config (autosave) so
        // that a restarted container resumes it.
        config.admin = { listen: ADMIN, config: { persist: true } };
        await loadCaddyConfig(await frontDoorContainer(r), config);
      }),

    async connect(regionId, network) {
      const r = region(regionId);
      try {
        await r.manager.getNetwork(network).connect({ Container: CONTAINER });
      } catch (error) {
        // Already connected (403 or 409, depending on the engine's version).
        if ([403, 409].includes(statusOf(error) ?? 0)) return;
        throw error;
      }
    },

    async disconnect(regionId, network) {
      const r = region(regionId);
      await unlessMissing(() =>
        r.manager.getNetwork(network).disconnect({ Container: CONTAINER, Force: true }),
      ).catch(() => {});
    },

    urls(regionId, slug, domain, type) {
      const temporaryUrl = `http://${temporaryHost(regionId, slug)}${suffix(httpPort, 80)}`;
      const url = domain ? `https://${domain}${suffix(httpsPort, 443)}` : temporaryUrl;
      return { url, adminUrl: type === 'wordpress' ? `${url}/wp-admin/` : `${url}/`, temporaryUrl };
    },

    address: (regionId) => managerNodeAddress(region(regionId)),

    async request(regionId, host, method, path, body) {
      const address = await managerNodeAddress(region(regionId));
      return requestThrough(address, httpPort, { host, method, path, body });
    },

    async waitFor(regionId, slug, path, statuses, timeoutMs = 60_000) {
      const host = `${temporaryHost(regionId, slug)}${suffix(httpPort, 80)}`;
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        const { status, text } = await doors.request(regionId, host, 'GET', path);
        if (statuses.includes(status)) return;
        last = status ? `HTTP ${status}` : text;
        if (Date.now() > deadline)
          throw new Error(`${host}${path} did not answer in ${timeoutMs} ms (${last})`);
        await sleep(150);
      }
    },

    async sslStatus(regionId, domain) {
      const r = region(regionId);
      const address = await managerNodeAddress(r);
      let ca: string | undefined;
      if ((ctx.options.tls ?? { issuer: 'internal' }).issuer === 'internal') {
        ca = await execIn(
          await frontDoorContainer(r),
          ['cat', '/data/data/caddy/pki/authorities/local/root.crt'],
          {
            user: 'caddy',
          },
        ).catch(() => undefined);
      }
      // Certificates and Caddy's log are inside its container: the handshake alone decides here.
      return sslStatusOf({ host: address, port: httpsPort, domain, ca }, '/nonexistent', '/nonexistent');
    },

    async removeCertificates(regionId, domain) {
      const target = await frontDoorContainer(region(regionId));
      await execIn(target, ['sh', '-c', 'rm -rf /data/data/caddy/certificates/*/"$1"', 'sh', domain], {
        user: 'caddy',
      });
    },
  };
  return doors;
}

export type { Docker };
