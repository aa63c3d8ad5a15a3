import { existsSync, readdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../../../lib/errors.ts';
import { createKeyedLock } from '../../../lib/keyed-lock.ts';
import type { ServerHealth } from '../../driver.ts';
import type { SiteUrls, SslStatus } from '../../engine.ts';
import { buildCaddyConfig, type CaddySite, type TlsIssuer } from '../../front-door/caddy-config.ts';
import { sslStatusOf } from '../../front-door/ssl-probe.ts';
import { type OsUser, serviceUser } from '../host/host.ts';
import { type CaddyPorts, caddyPaths, caddyPorts, type LocalCaddy, localCaddy } from './caddy.ts';

/**
 * The front door of the applications on this host (WordPress sites and n8n instances): Caddy (as
 * `caddy`, never root) with its ports chosen once, loaded with the whole configuration on every change,
 * the addresses applications answer on, the proof that one answers, and its certificates. The local
 * driver owns it and hands it to the WordPress and n8n engines; each adds the routes of its instances
 * (`addRoutes`), so a reload by either carries both and neither knows the other.
 */
export interface FrontDoorOptions {
  /** Temporary URLs are `<slug>.<baseDomain>`. */
  baseDomain: string;
  /** Address Caddy listens on (0.0.0.0 on a public host). */
  listenHost: string;
  httpPort: number | undefined;
  httpsPort: number | undefined;
  tls: TlsIssuer;
}

export interface FrontDoor {
  /** Adds a source of routes (an engine's instances as their state says now), read on every load. */
  addRoutes(source: () => Promise<CaddySite[]>): void;
  /** Chooses the ports (before anything else needs them). */
  preparePorts(): Promise<CaddyPorts>;
  /** Starts (or adopts) Caddy serving every source's routes. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Loads Caddy with every source's routes as they are now, optionally edited (one load at a time). */
  reload(edit?: (sites: CaddySite[]) => CaddySite[]): Promise<void>;
  running(): boolean;
  /** The user Caddy runs as: the group of the site folders it serves. */
  user(): OsUser | undefined;
  urls(slug: string, domain: string | null): SiteUrls;
  temporaryHost(slug: string): string;
  /** Resolves when the site's temporary URL answers 200 through Caddy (the proof that it works). */
  waitForSite(slug: string, timeoutMs?: number): Promise<void>;
  sslStatus(domain: string): Promise<SslStatus>;
  removeCertificates(domain: string): Promise<void>;
  health(): Promise<ServerHealth | undefined>;
  /** Where probes and clients on this host reach the front door. */
  probeHost: string;
}

const portSuffix = (port: number, standard: number) => (port === standard ? '' : `:${port}`);

export function frontDoor(root: string, options: FrontDoorOptions, log: (line: string) => void): FrontDoor {
  const files = caddyPaths(root);
  const probeHost = options.listenHost === '0.0.0.0' ? '127.0.0.1' : options.listenHost;
  const loads = createKeyedLock();
  let ports: CaddyPorts | undefined;
  let caddy: LocalCaddy | undefined;
  let caddyUser: OsUser | undefined;
  const sources: (() => Promise<CaddySite[]>)[] = [];
  const allRoutes = async () => (await Promise.all(sources.map((source) => source()))).flat();

  function knownPorts(): CaddyPorts {
    if (!ports) throw new ConflictError('The front door (Caddy) is not started');
    return ports;
  }

  function config(sites: CaddySite[]) {
    const p = knownPorts();
    return buildCaddyConfig(
      {
        adminListen: `unix/${files.adminSocket}`,
        logFile: files.jsonLog,
        accessLog: files.accessLog,
        listenHost: options.listenHost,
        httpPort: p.httpPort,
        httpsPort: p.httpsPort,
        tls: options.tls,
      },
      sites,
    );
  }

  const api: FrontDoor = {
    probeHost,
    addRoutes: (source) => void sources.push(source),

    async preparePorts() {
      ports = await caddyPorts(root, options.listenHost, {
        httpPort: options.httpPort,
        httpsPort: options.httpsPort,
      });
      caddyUser = serviceUser('caddy');
      return ports;
    },

    async start() {
      const p = knownPorts();
      caddy = localCaddy(root, caddyUser, p.httpPort < 1024 || p.httpsPort < 1024, log);
      await caddy.start(config(await allRoutes()));
    },

    async stop() {
      await caddy?.stop();
      caddy = undefined;
    },

    reload: (edit = (sites) => sites) =>
      loads('caddy', async () => {
        if (!caddy) throw new ConflictError('The front door (Caddy) is not running');
        await caddy.load(config(edit(await allRoutes())));
      }),

    running: () => caddy !== undefined,
    user: () => caddyUser,

    temporaryHost: (slug) => `${slug}.${options.baseDomain}`,

    urls(slug, domain) {
      const p = knownPorts();
      const temporaryUrl = `http://${slug}.${options.baseDomain}${portSuffix(p.httpPort, 80)}`;
      const url = domain ? `https://${domain}${portSuffix(p.httpsPort, 443)}` : temporaryUrl;
      return { url, adminUrl: `${url}/wp-admin/`, temporaryUrl };
    },

    async waitForSite(slug, timeoutMs = 30_000) {
      const p = knownPorts();
      const host = `${slug}.${options.baseDomain}${portSuffix(p.httpPort, 80)}`;
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        const status = await new Promise<number>((resolve) => {
          const request = http.get(
            {
              host: probeHost,
              port: p.httpPort,
              path: '/',
              headers: { Host: host },
              agent: false,
              timeout: 10_000,
            },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          );
          request.on('timeout', () => request.destroy());
          request.on('error', (error) => {
            last = error.message;
            resolve(0);
          });
        });
        if (status === 200) return;
        last = status ? `HTTP ${status}` : last;
        if (Date.now() > deadline)
          throw new Error(`The site ${host} did not answer 200 within ${timeoutMs} ms (${last})`);
        await sleep(50);
      }
    },

    async sslStatus(domain) {
      const ca =
        options.tls.issuer === 'internal' && existsSync(files.rootCertificate)
          ? await readFile(files.rootCertificate, 'utf8')
          : undefined;
      return sslStatusOf(
        { host: probeHost, port: knownPorts().httpsPort, domain, ca },
        files.certificates,
        files.jsonLog,
      );
    },

    async removeCertificates(domain) {
      if (!existsSync(files.certificates)) return;
      for (const issuer of readdirSync(files.certificates)) {
        await rm(path.join(files.certificates, issuer, domain), { recursive: true, force: true });
      }
    },

    async health() {
      if (!caddy) return undefined;
      return { ...(await caddy.health()), port: ports?.httpPort };
    },
  };
  return api;
}
