import type { InstanceType } from '../instance-types.ts';
import type { TlsIssuer } from '../local/front-door/caddy-config.ts';

/** How the swarm driver is configured (env.ts reads PROVISIONER=swarm's settings into this). */

export interface SwarmTls {
  /** PEM files of the CA that signed the engines' certificates, and of Berth's client certificate/key. */
  ca: string;
  cert: string;
  key: string;
}

export interface SwarmRegion {
  /**
   * A manager of the region's swarm: `unix:///var/run/docker.sock` or `tcp://host:2376` (TLS required).
   * Nodes' own engines (backups, volumes) are reached at their `berth.engine` label, else
   * `tcp://<node address>:2376` with the same certificates.
   */
  endpoint: string;
  tls?: SwarmTls;
}

export interface SwarmDriverOptions {
  /** Region id (one of @berth/openapi's REGIONS) → its swarm. */
  regions: Record<string, SwarmRegion>;
  /** Temporary URLs are `http://<slug>.<region>.<baseDomain>[:httpPort]` (a wildcard record per region). */
  baseDomain: string;
  /** Ports of each region's front door on its manager node: 80 and 443 by default. */
  httpPort?: number;
  httpsPort?: number;
  /** Who issues custom domains' certificates (Caddy's internal CA, or ACME). */
  tls?: TlsIssuer;
  /**
   * Images per type instead of Berth's own (built by image-builder.ts). MongoDB runs only from an image
   * named here (the official `mongo`, which the nodes must be able to pull); others must behave like
   * Berth's (same entrypoint contract).
   */
  images?: Partial<Record<InstanceType, string>>;
  /** The platform's backup folder: backups of swarm instances are streamed here, off their node. */
  backupsDir: string;
  /** Where nodes have the n8n runtime (n8n-runtime.ts), bound read-only into n8n instances. */
  runtimesDir?: string;
  /** Host ports database instances are published on (on their node), chosen per instance. */
  databasePorts?: { from: number; to: number };
  log?: (line: string) => void;
}

export const DEFAULT_DATABASE_PORTS = { from: 20000, to: 29999 };
