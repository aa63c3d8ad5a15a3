import type {
  BackupInfo,
  BackupInput,
  Capabilities,
  Capability,
  DatabaseCredentials,
  DriverHealth,
  InstanceType,
  SftpCredentials,
  SiteStorage,
  SiteUrls,
  SslStatus,
} from './driver.ts';

/**
 * An engine runs one instance type (MySQL, PostgreSQL, MongoDB, WordPress, n8n) for a driver: the local
 * driver runs each on this host, the swarm driver as Docker services. The instances service and its
 * jobs talk only to engines, through `driver.engine(row.type)`: the type travels with every call, so no
 * engine ever has to guess what an id is.
 *
 * Every engine can deploy, delete, suspend and resume. What only some types have is an optional
 * capability: the service asks the engine of a row's type for it, and a type without it simply has none
 * (a database has no domains; WordPress has no database password of its own to change). Every operation
 * is idempotent and keyed on the instance id, so a job may run it again after a crash.
 */
export interface InstanceEngine<Spec extends BaseSpec = BaseSpec> {
  readonly type: InstanceType;
  /** Whether the engine can deploy right now, and why not when it cannot. */
  capability(): Promise<Capability>;
  /**
   * Creates (or brings back) the instance and resolves when it serves. Calling it again for the same id
   * keeps the instance and its data and applies the spec's passwords again: pass the stored ones to get
   * the very same credentials back.
   */
  deploy(spec: Spec): Promise<Deployment>;
  /** Removes the instance and everything of it (files, database, user, certificates, backups). Absent: a no-op. */
  delete(id: string): Promise<void>;
  /** Takes it offline (a lapsed subscription): logins refused, sites show an offline page. The data stays. */
  suspend(id: string): Promise<void>;
  /** Undoes suspend. */
  resume(id: string): Promise<void>;

  readonly password?: PasswordCapability;
  readonly domains?: DomainCapability;
  readonly backups?: BackupCapability;
  readonly storage?: StorageCapability;
  readonly php?: PhpCapability;
}

/** What every deploy is given: the instance's id and what it was sold. */
export interface BaseSpec {
  /** The instance id (a uuid): lower-case letters, digits and '-' only. */
  id: string;
  /** The region it runs in (a driver with one region may ignore it; one without it refuses). */
  region?: string;
  /** The memory and CPU it was sold; absent: the driver's defaults. */
  resources?: Resources;
  /**
   * The owner's user id. The swarm driver labels everything it makes for the instance with it (so the
   * engine's own data says whose a service is: the admin's node view, clean-up); the local driver ignores it.
   */
  owner?: string;
}

export interface Resources {
  memoryMb: number;
  /** vCPUs, e.g. 0.5 or 2. */
  cpus: number;
}

export interface DatabaseSpec extends BaseSpec {
  /** The password to use; generated when absent. Generate it before the job runs to keep retries exact. */
  password?: string;
}

export interface SiteSpec extends BaseSpec {
  /** Site title, admin user name, e-mail and password of the WordPress install (used on the first deploy). */
  title: string;
  adminUser: string;
  adminEmail: string;
  adminPassword: string;
  /** One of the engine's php.versions(), e.g. '8.2'. */
  phpVersion: string;
  /** The tenant database password; generated when absent (generate it before the job to keep retries exact). */
  databasePassword?: string;
  /** The SFTP password; generated when absent (same advice). */
  sftpPassword?: string;
}

export interface N8nSpec extends BaseSpec {
  /** The owner account n8n is set up with on the first deploy (its password rules: 8–64, a digit, a capital). */
  ownerEmail: string;
  ownerPassword: string;
  ownerFirstName?: string;
  ownerLastName?: string;
  /** N8N_ENCRYPTION_KEY: generated once by the platform and stored encrypted; the same on every deploy. */
  encryptionKey: string;
}

/** The spec each type's engine deploys from. */
export interface SpecOf {
  mysql: DatabaseSpec;
  postgresql: DatabaseSpec;
  mongodb: DatabaseSpec;
  wordpress: SiteSpec;
  n8n: N8nSpec;
}

/** What a deploy answers: the parts the type has. */
export interface Deployment {
  /** A database instance's, or a WordPress site's own database. */
  database?: DatabaseCredentials;
  /** Sites and n8n: where they answer. */
  urls?: SiteUrls;
  /** WordPress: its SFTP login. */
  sftp?: SftpCredentials;
}

/** Databases: a new password, with live sessions closed so the old one stops working at once. */
export interface PasswordCapability {
  change(id: string, password: string): Promise<void>;
}

/** Sites and n8n: a custom domain served over HTTPS, and its certificate. */
export interface DomainCapability {
  /**
   * Attaches a custom domain (served over HTTPS; the temporary URL keeps working) or removes it (`null`);
   * the application's own address follows. Answers the addresses after the change.
   */
  set(id: string, domain: string | null): Promise<SiteUrls>;
  /** The custom domain's certificate, read by a TLS handshake probe; null without a custom domain. */
  sslStatus(id: string): Promise<SslStatus | null>;
  /** Discards the certificate and has a new one issued; answers the status right after. */
  requestSsl(id: string): Promise<SslStatus>;
}

export interface BackupCapability {
  /** Same `backupId` again: the same backup. */
  create(id: string, input: BackupInput): Promise<BackupInfo>;
  /** Newest first. */
  list(id: string): Promise<BackupInfo[]>;
  /** Exact restore: checksums verified first; the result is checked before it answers. */
  restore(id: string, backupId: string): Promise<void>;
  delete(id: string, backupId: string): Promise<void>;
}

/** How much of its disk an instance uses. */
export interface StorageCapability {
  usage(id: string): Promise<SiteStorage>;
}

/** WordPress: the PHP versions sites can run on here. */
export interface PhpCapability {
  versions(): Promise<string[]>;
}

/**
 * A region a driver can place instances in (the ids of `REGIONS` in @berth/openapi's rules). The local
 * driver has one (named by the operator); the swarm driver one per configured swarm.
 */
export interface RegionAvailability {
  id: string;
  available: boolean;
  /** Why not, in the customer's words, when unavailable. */
  reason?: string;
}

/**
 * An instance's live state as the driver sees it, for drivers whose instances can change state by
 * themselves (swarm: a node goes down, a task fails or is killed by its memory limit). The jobs write
 * `running`/`error` after their own operations; this carries what happens between them.
 */
export interface InstanceStatus {
  id: string;
  type: InstanceType;
  /**
   * running · starting (being (re)started) · stopped (suspended) · node-down (its server stopped
   * answering; it comes back with it) · error (it cannot run: `message` says why).
   */
  state: 'running' | 'starting' | 'stopped' | 'node-down' | 'error';
  /** In the customer's words: node-down "Waiting for its server to come back", error its reason. */
  message?: string;
}

export interface LiveStatusCapability {
  /** The instance's state now; undefined when the driver has no such instance. */
  status(id: string): Promise<InstanceStatus | undefined>;
  /**
   * Calls `listener` with an instance's state whenever it changes, and with an `error`-free notice
   * (`message` set, state unchanged) when a process of it was killed by its memory limit. Answers the
   * unsubscribe. The driver watches only while someone listens.
   */
  watch(listener: (status: InstanceStatus) => void): () => void;
}

/**
 * What a driver is once every type has its engine (driver.ts's ProvisioningDriver becomes exactly this
 * in the engine refactor): the engine of each type, what each can do now, the regions, and the driver's
 * own lifecycle.
 */
export interface EngineDriver {
  /** The engine of an instance type (one that cannot run here answers an unavailable capability). */
  engine<T extends InstanceType>(type: T): InstanceEngine<SpecOf[T]>;
  /** Every type's capability (each engine's capability()). */
  capabilities(): Promise<Capabilities>;
  /** Every region customers can pick, and whether this driver can place instances there. */
  regions(): Promise<RegionAvailability[]>;
  /** Brings up what the driver supervises or connects to. */
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<DriverHealth>;
  /** Live instance states (the swarm driver has them; the local driver's jobs already know). */
  readonly live?: LiveStatusCapability;
}
