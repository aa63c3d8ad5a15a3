import type { Readable } from 'node:stream';
import { type Capability, type Feature, type InstanceType, TYPE_FEATURES } from './instance-types.ts';

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
  /** Removes the instance and everything of it (files, database, user, certificates). Absent: a no-op. */
  delete(id: string): Promise<void>;
  /** Takes it offline (a lapsed subscription): logins refused, sites show an offline page. The data stays. */
  suspend(id: string): Promise<void>;
  /** Undoes suspend. */
  resume(id: string): Promise<void>;

  /**
   * Each feature of the type's nature (instance-types.ts TYPE_FEATURES), and only those: `true` where this
   * engine offers it, else why not in the customer's words (shown where the feature would be). Where a
   * feature has a capability object below, `true` comes with the object, and only with it
   * (test/contract/ holds every engine to this).
   */
  readonly features: FeatureOffers;

  readonly password?: PasswordCapability;
  readonly domains?: DomainCapability;
  readonly backups?: BackupCapability<Spec>;
  readonly storage?: StorageCapability;
  readonly php?: PhpCapability;
}

/** A type's features as one engine offers them: `true`, or the reason it does not. */
export type FeatureOffers = Partial<Record<Feature, true | string>>;

/** Why a database has no administration page here (phpMyAdmin), in the customer's words. */
export const NO_DATABASE_ADMIN = 'phpMyAdmin is not offered on this server';
/** Why a WordPress site's own database has none (on every driver): its content is managed in WordPress. */
export const NO_SITE_DATABASE_ADMIN =
  'A site’s own database has no phpMyAdmin here: manage its content in WordPress';

/** Every feature of `type` offered, but those `missing` names with the reason it is not. */
export function featuresOf(
  type: InstanceType,
  missing: Partial<Record<Feature, string>> = {},
): FeatureOffers {
  return Object.fromEntries(TYPE_FEATURES[type].map((feature) => [feature, missing[feature] ?? true]));
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

/**
 * Backups, as the engine's half of them: it streams a consistent copy of the instance's data into an
 * archive and brings the instance back from one. Where the archive goes (a local folder or an S3
 * bucket), its encryption, checksums, names and retention are the platform's (server/src/backup-storage/):
 * the engine only writes and reads named parts. Each part is written as it is produced (a dump piped
 * through), so a backup is never held whole in memory. Both calls run as the instance's own user in its
 * sandbox wherever they touch the instance's files.
 */
export interface BackupCapability<Spec extends BaseSpec = BaseSpec> {
  /**
   * Streams the instance's data into `archive`, one part after another, and answers figures its restore
   * will check (such as the table count). The instance keeps serving (or is briefly stopped where a
   * consistent copy needs it, like n8n's SQLite). `spec` is the one the instance runs with (its
   * stored passwords: a database is dumped with its own login).
   */
  dump(spec: Spec, archive: ArchiveWriter, progress?: BackupProgress): Promise<BackupFacts>;
  /**
   * Replaces the instance's data with the archive's, exactly: data added since is gone. The archive
   * was checked (SHA-256) before this is called; `facts` are what dump answered. Resolves once the
   * result was checked against them.
   */
  restore(spec: Spec, archive: ArchiveReader, facts: BackupFacts, progress?: BackupProgress): Promise<void>;
}

/** Figures a dump answers and its restore checks, e.g. `{ tables: 12 }`. */
export type BackupFacts = Record<string, number>;

/** Says which step a backup or restore is at ("Dumping the database", "Copying files"). */
export type BackupProgress = (step: string) => void;

/** Where a dump writes its parts. */
export interface ArchiveWriter {
  /** Stores `source` whole as the part `name` ([a-z0-9.-]), streamed; resolves once it is stored. */
  part(name: string, source: Readable): Promise<void>;
}

/** Where a restore reads the parts a dump wrote. */
export interface ArchiveReader {
  /** The names of the parts, in the order they were written. */
  readonly parts: readonly string[];
  /** The bytes of a part as the dump wrote them (a NotFoundError for a part the archive lacks). */
  part(name: string): Readable;
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
  /**
   * The server requires TLS: clients verify its certificate with `caPem` (the driver's own CA), or with
   * the public CAs they trust when null (an operator's certificate, e.g. from ACME). Absent: no TLS (a
   * tenant of a shared server, reached over loopback or a private network).
   */
  tls?: { caPem: string | null };
  /**
   * MySQL instances with a server of their own, where the driver runs one: the address of a phpMyAdmin
   * that logs in to this database only (null or absent: none).
   */
  phpmyadmin?: string | null;
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
  /**
   * What it can still write now: less than limitBytes − usedBytes while the server's disk holds room back
   * (the hold, disk-policy.ts). Absent where not measured.
   */
  roomBytes?: number;
}
