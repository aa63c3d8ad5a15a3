import type { Capability, InstanceType } from './instance-types.ts';

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

/** How much of its size an instance uses. */
export interface StorageCapability {
  /** Null where no size is enforced (a database on an external server, or one made before sizes). */
  usage(id: string): Promise<StorageUse | null>;
}

/** WordPress: the PHP versions sites can run on here. */
export interface PhpCapability {
  versions(): Promise<string[]>;
}

export interface DatabaseCredentials {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

export interface SiteUrls {
  /** Where the site answers: the custom domain over HTTPS when one is attached, else the temporary URL. */
  url: string;
  /** WordPress: `<url>/wp-admin/`; n8n: `<url>/`. */
  adminUrl: string;
  /** `http://<slug>.<base domain>[:port]`, which keeps working with a custom domain attached. */
  temporaryUrl: string;
}

export interface SftpCredentials {
  host: string;
  port: number;
  user: string;
  password: string;
}

const SSL_STATES = ['Active', 'Pending', 'FAILED'] as const;
export type SslState = (typeof SSL_STATES)[number];

export interface SslStatus {
  domain: string;
  /** Active: a handshake for the domain presents a valid certificate; FAILED: issuance failed (message). */
  status: SslState;
  message: string;
  /** ISO time of the probe. */
  lastChecked: string;
  /** ISO expiry of the certificate presented (Active) or stored. */
  expiresAt?: string;
}

export interface StorageUse {
  usedBytes: number;
  limitBytes: number;
  /** Whether its writes are refused now because it reached its limit (a database at its size). */
  full?: boolean;
}

export interface BackupInput {
  /** [a-z0-9-], up to 64; generated when absent (generate it before the job to keep retries exact). */
  backupId?: string;
  name: string;
  note?: string;
}

export interface BackupInfo {
  id: string;
  name: string;
  note: string;
  /** ISO time. */
  createdAt: string;
  /** Bytes of the stored archives together. */
  size: number;
  /** sha256 (hex) of the backup's SHA256SUMS text, which lists the sha256 of each archive. */
  sha256: string;
}
