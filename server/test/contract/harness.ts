import type { RegionId } from '@berth/openapi/rules';
import type { ProvisioningDriver } from '../../src/provisioning/driver.ts';
import type { InstanceType } from '../../src/provisioning/instance-types.ts';

/**
 * What the driver contract (driver-contract.ts) needs of a driver: the driver itself, started with
 * everything it runs, and the few facts about it a customer's client needs (where its front door
 * answers, the CA of its certificates) or a test must read from the driver's side (its disks' sizes, its
 * limits where it measures no usage, and what it still holds of a deleted instance). The contract builds
 * the platform around it (database, API, job runner, backups, DNS) the same way for every driver.
 */
export interface ContractHarness {
  /** The driver's name in the results table and its file: 'local', 'swarm'. */
  label: string;
  /** Starts the driver and what it runs, once for the whole contract. */
  start(): Promise<DriverUnderTest>;
}

export interface DriverUnderTest {
  driver: ProvisioningDriver;
  /** The region customers deploy into (one this driver serves). */
  region: RegionId;
  /**
   * The address a customer's client reaches sites, n8n and phpMyAdmin at: every host name the API
   * answers (temporary URLs, custom domains) is resolved to it, on the URL's own port (curl --resolve).
   * Local: 127.0.0.1 (Caddy on its own ports); swarm: the region manager's address (80/443).
   */
  frontDoor: string;
  /** A PEM file of the CA that signs custom domains' certificates (curl --cacert); read once one is issued. */
  domainCa(): string;
  /** Each type's disk as the driver was given it, MiB: the storage figure's limit must say it. */
  diskMb: Partial<Record<InstanceType, number>>;
  /**
   * The memory and CPU the driver applies to an instance, read on its side: the contract's check of
   * "limits as sold" where the driver measures no usage (the usage samples carry the limits otherwise).
   */
  appliedLimits?(
    instanceId: string,
    type: InstanceType,
  ): Promise<{ memoryBytes: number | null; cpus: number | null }>;
  /** Paths on the server a tenant must never read over SFTP (the driver's own data), to try. */
  privatePaths: readonly string[];
  /**
   * Whatever the driver still has of a deleted instance, one string each (a path, a user, a process, a
   * service, a volume, a database): empty when nothing is left.
   */
  leftovers(instanceId: string, type: InstanceType): Promise<string[]>;
  /** The driver's log so far, shown with a failed check. */
  log(): string;
  /** Stops the driver and removes what it ran, also after a failure. */
  stop(): Promise<void>;
}
