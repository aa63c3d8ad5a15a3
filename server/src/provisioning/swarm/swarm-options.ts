import type { TlsIssuer } from '../front-door/caddy-config.ts';
import type { InstanceType } from '../instance-types.ts';

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
   * Images per type instead of Berth's own (built by image-builder.ts); they must behave like Berth's
   * (same entrypoint contract). MongoDB is not offered on a swarm.
   */
  images?: Partial<Record<InstanceType, string>>;
  /**
   * Where this driver kept folder backups before backups became the platform's (server/src/backup-storage):
   * only read to remove a deleted instance's old ones.
   */
  backupsDir: string;
  /** Where nodes have the n8n runtime (n8n-runtime.ts), bound read-only into n8n instances. */
  runtimesDir?: string;
  /** Host ports database instances are published on (on their node), chosen per instance. */
  databasePorts?: { from: number; to: number };
  /** The size of each kind of volume, MiB (the local driver's settings; DEFAULT_DISKS for those absent). */
  disks?: Partial<DiskSizes>;
  /**
   * What each node may promise instances' disks (disk-policy.ts): MiB kept free (DISK_RESERVE_MB,
   * default 2048) and promised ÷ real space (DISK_OVERCOMMIT, default DEFAULT_DISK_OVERCOMMIT).
   */
  diskPolicy?: { reserveMb: number; overcommit: number };
  /**
   * Encrypts instances' overlay networks (IPsec between nodes). Every node's kernel needs ESP for it:
   * where one lacks it, traffic between nodes on such a network is silently dropped. Off by default.
   */
  encryptedOverlays?: boolean;
  /**
   * The SFTP gateway for sites (site-sftp.ts), in Berth's process: where it listens, the host name
   * customers use for it, and its host key's file. Absent: sites have no SFTP (the feature says so).
   */
  sftp?: { listenHost: string; port: number; publicHost: string; hostKeyFile: string };
  /**
   * How long a node may be down before it counts as lost (its instances are then relocated and restored
   * from their backups by the platform): 60 s by default.
   */
  nodeLostAfterMs?: number;
  /** How long a backup may make no progress before it fails (2 minutes; tests shorten it). */
  backupStallMs?: number;
  /** IPv4 ranges n8n instances may reach although private (TENANT_EGRESS_ALLOW); none by default. */
  egressAllow?: readonly string[];
  log?: (line: string) => void;
}

export const DEFAULT_DATABASE_PORTS = { from: 20000, to: 29999 };

/** The size of each kind of volume an instance gets, MiB (volumes.ts makes them). */
export interface DiskSizes {
  /** A site's wp-content. */
  wordpress: number;
  /** A site's database (its data; MariaDB's own files come on top). */
  wordpressDatabase: number;
  mysql: number;
  postgresql: number;
  n8n: number;
}

export const DEFAULT_DISKS: DiskSizes = {
  wordpress: 1024,
  wordpressDatabase: 512,
  mysql: 1024,
  postgresql: 1024,
  n8n: 1024,
};
