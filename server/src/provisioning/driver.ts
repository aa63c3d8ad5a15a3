import { ConflictError } from '../lib/errors.ts';

/**
 * The provisioning driver: what the rest of the server calls to create and manage what customers run.
 * `local` (./local/) runs it on this host; a `kubernetes` driver comes later. Every operation is
 * idempotent and keyed on the instance id, so a job may simply run it again after a crash.
 */
export interface ProvisioningDriver {
  /** Which instance types this driver can provide right now, and why not when it cannot. */
  capabilities(): Promise<Capabilities>;

  /**
   * Creates the tenant (database + user) of a database instance and returns its credentials. Calling it
   * again for the same id keeps the tenant and its data and (re)sets the password: pass the stored
   * `password` to get the very same credentials back.
   */
  deployDatabase(spec: DatabaseSpec): Promise<DatabaseCredentials>;
  /** Drops the tenant's database and user and closes its sessions. Deleting an absent tenant is a no-op. */
  deleteDatabase(ref: DatabaseRef): Promise<void>;
  /** Refuses new logins and closes live sessions (a lapsed subscription). The data stays. */
  suspendDatabase(ref: DatabaseRef): Promise<void>;
  /** Lets the tenant log in again after a suspension. */
  resumeDatabase(ref: DatabaseRef): Promise<void>;
  /** Sets a new password and closes live sessions, so the old password stops working at once. */
  changeDatabasePassword(ref: DatabaseRef, password: string): Promise<void>;

  /** The PHP versions WordPress sites can run on here (those installed on the host), e.g. ['8.2']. */
  phpVersions(): Promise<string[]>;
  /**
   * Creates (or brings back) a WordPress site: tenant database, files, PHP pool, non-interactive install
   * with the customer's title and admin account, front-door routes, SFTP login. Resolves when the
   * temporary URL answers 200. Calling it again for the same id keeps the site, its content and its admin
   * account, and (re)sets the SFTP and database passwords: pass the stored ones to get the very same
   * credentials back. A PHP version the host lacks is refused (ValidationError naming those it has).
   */
  deploySite(spec: SiteSpec): Promise<SiteAccess>;
  /**
   * Creates (or brings back) an n8n instance: its user, data folder, sandboxed process and route; the
   * owner account from the spec on the first deploy. Resolves when the temporary URL serves the editor.
   * The operations below keyed on a site id (delete, suspend, resume, domain, SSL, backups) serve n8n
   * instances as well; siteStorage does not.
   */
  deployN8n(spec: N8nSpec): Promise<SiteUrls>;
  /** Removes routes, PHP pool, files, database, OS user, certificate and backups. Absent: a no-op. */
  deleteSite(id: string): Promise<void>;
  /** Takes the site offline (an offline page on all its addresses), locks its database and SFTP login. */
  suspendSite(id: string): Promise<void>;
  /** Undoes suspendSite. */
  resumeSite(id: string): Promise<void>;
  /**
   * Attaches a custom domain (served over HTTPS; the temporary URL keeps working over HTTP) or removes it
   * (`null`). WordPress' own site address (home, siteurl) follows, so the site keeps working. Answers the
   * site's addresses after the change.
   */
  setSiteDomain(id: string, domain: string | null): Promise<SiteUrls>;
  /** The certificate of the custom domain, read by a TLS handshake probe; null without a custom domain. */
  sslStatus(id: string): Promise<SslStatus | null>;
  /** Discards the custom domain's certificate and has a new one issued; answers the status right after. */
  requestSsl(id: string): Promise<SslStatus>;
  /** Database dump + wp-content archive, stored outside the site. Same `backupId` again: the same backup. */
  createBackup(id: string, input: BackupInput): Promise<BackupInfo>;
  /** Newest first. */
  listBackups(id: string): Promise<BackupInfo[]>;
  /**
   * Exact restore: checksums verified first, then the database is dropped and recreated from the dump
   * and wp-content replaced; the result is checked before it answers.
   */
  restoreBackup(id: string, backupId: string): Promise<void>;
  deleteBackup(id: string, backupId: string): Promise<void>;
  /** How much of its storage (its disk) the site uses. */
  siteStorage(id: string): Promise<SiteStorage>;

  /** Brings up the servers the driver supervises (or connects to the configured ones). */
  start(): Promise<void>;
  /** Closes admin connections and shuts the supervised servers down gracefully. */
  stop(): Promise<void>;
  health(): Promise<DriverHealth>;
}

export const DATABASE_TYPES = ['mysql', 'postgresql', 'mongodb'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

/** Instance types served by a site runtime (wordpress by the local driver's sites; n8n 'Coming soon'). */
const SITE_TYPES = ['wordpress', 'n8n'] as const;
type SiteType = (typeof SITE_TYPES)[number];

export const INSTANCE_TYPES = [...DATABASE_TYPES, ...SITE_TYPES] as const;
export type InstanceType = DatabaseType | SiteType;

/** The names customers read for each type. */
const TYPE_LABELS = {
  mysql: 'MySQL',
  postgresql: 'PostgreSQL',
  mongodb: 'MongoDB',
  wordpress: 'WordPress',
  n8n: 'n8n',
} as const satisfies Record<InstanceType, string>;

/**
 * Why a type cannot be deployed now, twice: `reason` in the customer's words (the deploy page, API
 * errors, an instance's status message), and `detail`, the operator's (what is missing on the host, the
 * command that fixes it), which only the Admin Panel and the server log show.
 */
export interface Unavailable {
  reason: string;
  detail?: string;
}

type NotAvailable = { available: false } & Unavailable;
export type Capability = { available: true } | NotAvailable;
export type Capabilities = Record<InstanceType, Capability>;

export const COMING_SOON: NotAvailable = { available: false, reason: 'Coming soon' };

/** The customer's words for each way a type can be unavailable; the operator's `detail` rides along. */
export const unavailable = {
  /** This server cannot run the type at all (no server for it, a host package missing, turned off). */
  notOffered: (type: InstanceType, detail?: string): NotAvailable => ({
    available: false,
    reason: `${TYPE_LABELS[type]} is not offered on this server`,
    detail,
  }),
  /** It is being installed or started, and will be available without anyone doing anything. */
  settingUp: (type: InstanceType, detail?: string, minutesLeft?: number): NotAvailable => ({
    available: false,
    reason: `${TYPE_LABELS[type]} is being set up on this server; it will be ready in ${
      minutesLeft === undefined
        ? 'a few minutes'
        : `about ${minutesLeft} minute${minutesLeft === 1 ? '' : 's'}`
    }`,
    detail,
  }),
  /** It ran here but does not now (a server stopped, a start failed): the operator has to look. */
  down: (type: InstanceType, detail?: string): NotAvailable => ({
    available: false,
    reason: `${TYPE_LABELS[type]} is temporarily unavailable on this server; please try again later`,
    detail,
  }),
};

export interface DatabaseRef {
  /** The instance id (a uuid): lower-case letters, digits and '-' only. */
  id: string;
  type: DatabaseType;
}

export interface DatabaseSpec extends DatabaseRef {
  /** The password to use; generated when absent. Generate it before the job runs to keep retries exact. */
  password?: string;
}

export interface DatabaseCredentials {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

export interface SiteSpec {
  /** The instance id: lower-case letters, digits and '-' only. */
  id: string;
  type: 'wordpress';
  /** Site title, admin user name, e-mail and password of the WordPress install (used on the first deploy). */
  title: string;
  adminUser: string;
  adminEmail: string;
  adminPassword: string;
  /** One of phpVersions(), e.g. '8.2'. */
  phpVersion: string;
  /** The tenant database password; generated when absent (generate it before the job to keep retries exact). */
  databasePassword?: string;
  /** The SFTP password; generated when absent (same advice). */
  sftpPassword?: string;
}

export interface N8nSpec {
  /** The instance id: lower-case letters, digits and '-' only. */
  id: string;
  /** The owner account n8n is set up with on the first deploy (its password rules: 8–64, a digit, a capital). */
  ownerEmail: string;
  ownerPassword: string;
  ownerFirstName?: string;
  ownerLastName?: string;
  /** N8N_ENCRYPTION_KEY: generated once by the platform and stored encrypted; the same on every deploy. */
  encryptionKey: string;
  /** Heap limit of the main process (MiB). */
  memoryMb?: number;
}

export interface SiteUrls {
  /** Where the site answers: the custom domain over HTTPS when one is attached, else the temporary URL. */
  url: string;
  /** `<url>/wp-admin/`. */
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

export interface SiteAccess extends SiteUrls {
  sftp: SftpCredentials;
  database: DatabaseCredentials;
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

export interface SiteStorage {
  usedBytes: number;
  limitBytes: number;
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

export type ServerState = 'stopped' | 'starting' | 'running' | 'restarting' | 'stopping' | 'failed';

export interface ServerHealth {
  /** `external`: a server given by an admin URL; `local`: one the driver runs; `none`: not available. */
  kind: 'local' | 'external' | 'none';
  state: ServerState;
  /** Whether `SELECT 1` answered just now. */
  ok: boolean;
  pid?: number;
  port?: number;
  restarts?: number;
  message?: string;
}

export interface DriverHealth {
  ok: boolean;
  servers: Record<string, ServerHealth>;
}

/**
 * The instance type cannot be provisioned here (answered as a 409): the message and `details.reason` are
 * the customer's words; the operator's `detail` is kept for the log only.
 */
export class ProvisioningUnavailableError extends ConflictError {
  readonly detail: string | undefined;

  constructor(type: InstanceType, why: Unavailable) {
    super(why.reason, { type, reason: why.reason });
    this.detail = why.detail;
  }
}
