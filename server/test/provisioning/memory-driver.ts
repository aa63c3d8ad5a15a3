import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import {
  capabilitiesOf,
  type Engines,
  type InstanceStatus,
  type LiveStatusCapability,
  type ProvisioningDriver,
  type StorageLimitEvent,
} from '../../src/provisioning/driver.ts';
import {
  type BackupCapability,
  type DatabaseCredentials,
  type DomainCapability,
  featuresOf,
  type InstanceEngine,
  type SiteUrls,
  type SpecOf,
} from '../../src/provisioning/engine.ts';
import { type Feature, INSTANCE_TYPES, type InstanceType } from '../../src/provisioning/instance-types.ts';
import { createUnconfiguredDriver } from '../../src/provisioning/unconfigured-driver.ts';

/** What the memory driver keeps of an instance. */
export interface MemoryInstance {
  type: InstanceType;
  suspended: boolean;
  password: string;
  domain: string | null;
  /** What a backup copies and a restore brings back. */
  data: string;
}

/** Per type, the features its engine declares unavailable, with the customer's reason. */
export type Declined = Partial<Record<InstanceType, Partial<Record<Feature, string>>>>;

/**
 * What a test makes the engines do, set (and cleared) at any time: hold an operation until the test
 * lets it go on (await a promise), fail it (throw), or change what it answers.
 */
export interface MemoryHooks {
  /** Before every deploy, of any type, with the spec it was given. */
  beforeDeploy?: (spec: SpecOf[InstanceType]) => Promise<void>;
  /** Changes the database credentials a deploy answers (e.g. a database moved onto a server of its own). */
  deployed?: (credentials: DatabaseCredentials) => DatabaseCredentials;
  /** Before every database password change. */
  beforePassword?: (id: string, password: string) => Promise<void>;
  /** Before every custom domain change (`null`: removed), of a site or n8n. */
  beforeDomain?: (id: string, domain: string | null) => Promise<void>;
}

export interface MemoryDriver extends ProvisioningDriver {
  /** Every instance deployed and not deleted, by id. */
  readonly instances: Map<string, MemoryInstance>;
  hooks: MemoryHooks;
  /**
   * Tells the onStorageLimit listeners that a database filled (or is below its size again), as the
   * local driver's watch does when a tenant's writes are refused at its limit.
   */
  storageLimit(event: StorageLimitEvent): void;
  /**
   * Tells the live.watch listeners of an instance's state, as the swarm driver does when a node goes
   * down or a task is killed by its memory limit (only with `live: true`; throws when nobody listens).
   */
  liveState(status: InstanceStatus): void;
}

/**
 * A driver whose engines keep their instances in memory, shaped like the real ones: every type deploys
 * (credentials, addresses, an SFTP login for WordPress), suspends, resumes and deletes, and has the
 * optional capabilities of its type (password, domains, backups, storage, PHP). The features `declined`
 * names are declared unavailable with the reason given, and their capability object is left out, as
 * engine.ts asks of every driver. Its `hooks` hold, fail or change an operation, and `storageLimit`
 * plays the driver's watch of full databases. For route and service tests of the platform's rules
 * (statuses, jobs' retries and deadlines, notifications, suspension, what a feature a driver does not
 * offer answers); the platform database and job runner around it stay real. What real instances do
 * (logins refused when suspended, writes refused at the size) is proven on the real drivers' own tests.
 */
export function createMemoryDriver(
  declined: Declined = {},
  options: {
    /**
     * Offer live states, as a driver whose instances change state by themselves (swarm): each instance
     * runs, or is stopped while suspended; a relocate lets go of it (its next deploy brings it back);
     * a move keeps it as it is.
     */
    live?: boolean;
    /** Types this server does not offer: their engines refuse everything, as the unconfigured driver's. */
    notOffered?: readonly InstanceType[];
  } = {},
): MemoryDriver {
  const base = createUnconfiguredDriver();
  const instances = new Map<string, MemoryInstance>();
  let hooks: MemoryHooks = {};
  const listeners = new Set<(event: StorageLimitEvent) => void>();
  const watchers = new Set<(status: InstanceStatus) => void>();
  const known = (id: string) => {
    const found = instances.get(id);
    if (!found) throw new Error(`no instance ${id}`);
    return found;
  };
  const urlsOf = (id: string): SiteUrls => {
    const temporaryUrl = `http://${id.slice(0, 12)}.localhost:8180`;
    const domain = instances.get(id)?.domain;
    const url = domain ? `https://${domain}` : temporaryUrl;
    return { url, adminUrl: `${url}/wp-admin/`, temporaryUrl };
  };

  function engineOf<T extends InstanceType>(type: T): InstanceEngine<SpecOf[T]> {
    const missing: Partial<Record<Feature, string>> = declined[type] ?? {};
    const offers = (feature: Feature) => missing[feature] === undefined;
    const database = type !== 'wordpress' && type !== 'n8n';
    const domains: DomainCapability = {
      async set(id, domain) {
        known(id);
        await hooks.beforeDomain?.(id, domain);
        known(id).domain = domain;
        return urlsOf(id);
      },
      async sslStatus(id) {
        const { domain } = known(id);
        return domain
          ? { domain, status: 'Active', message: 'HTTPS is enabled', lastChecked: new Date().toISOString() }
          : null;
      },
      async requestSsl(id) {
        const domain = known(id).domain ?? '';
        return { domain, status: 'Pending', message: 'Issuing', lastChecked: new Date().toISOString() };
      },
    };
    const backups: BackupCapability<SpecOf[T]> = {
      async dump(spec, archive) {
        await archive.part('data', Readable.from([known(spec.id).data]));
        return { rows: 1 };
      },
      async restore(spec, archive) {
        known(spec.id).data = await text(archive.part('data'));
      },
    };
    return {
      type,
      features: featuresOf(type, missing),
      capability: async () => ({ available: true }),
      async deploy(spec) {
        await hooks.beforeDeploy?.(spec);
        const given = 'password' in spec ? spec.password : undefined;
        const existing = instances.get(spec.id);
        // Deploying again keeps the instance and its data and applies the spec's password again.
        if (existing && given) existing.password = given;
        const password = given || 'memory-password';
        instances.set(spec.id, existing ?? { type, suspended: false, password, domain: null, data: 'first' });
        const login = { host: '127.0.0.1', port: 3306, database: `t_${spec.id.slice(0, 8)}`, user: 'u' };
        if (database) {
          const credentials = { ...login, password: known(spec.id).password };
          return { database: hooks.deployed ? hooks.deployed(credentials) : credentials };
        }
        return {
          urls: urlsOf(spec.id),
          ...(type === 'wordpress' && {
            database: { ...login, password },
            ...(offers('sftp') && {
              sftp: { host: '127.0.0.1', port: 2222, user: spec.id.slice(0, 12), password: 'sftp-password' },
            }),
          }),
        };
      },
      async delete(id) {
        instances.delete(id);
      },
      async suspend(id) {
        known(id).suspended = true;
      },
      async resume(id) {
        known(id).suspended = false;
      },
      ...(database &&
        offers('password') && {
          password: {
            async change(id: string, password: string) {
              known(id);
              await hooks.beforePassword?.(id, password);
              known(id).password = password;
            },
          },
        }),
      ...(!database && offers('domains') && { domains }),
      ...(offers('backups') && { backups }),
      ...(offers('storage') && {
        storage: { usage: async () => ({ usedBytes: 1024 ** 2, limitBytes: 1024 ** 3 }) },
      }),
      ...(type === 'wordpress' && { php: { versions: async () => ['8.2'] } }),
    };
  }

  const engines = Object.fromEntries(
    INSTANCE_TYPES.map((type) => [
      type,
      options.notOffered?.includes(type) ? base.engine(type) : engineOf(type),
    ]),
  ) as Engines;
  const live: LiveStatusCapability = {
    async status(id) {
      const found = instances.get(id);
      return found && { id, type: found.type, state: found.suspended ? 'stopped' : 'running' };
    },
    watch(listener) {
      watchers.add(listener);
      return () => watchers.delete(listener);
    },
    async relocate(id) {
      instances.delete(id);
    },
    async move(id) {
      known(id);
    },
  };
  return {
    ...base,
    instances,
    // Read at each call, so a test may replace them all at once (`driver.hooks = {}`).
    get hooks() {
      return hooks;
    },
    set hooks(next) {
      hooks = next;
    },
    storageLimit: (event) => {
      for (const listener of listeners) listener(event);
    },
    liveState: (status) => {
      if (watchers.size === 0) throw new Error('nobody listens to the live states');
      for (const watcher of watchers) watcher(status);
    },
    ...(options.live && { live }),
    onStorageLimit(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    engine: (type) => engines[type],
    capabilities: () => capabilitiesOf(engines),
    health: async () => ({ ok: true, servers: {} }),
  };
}
