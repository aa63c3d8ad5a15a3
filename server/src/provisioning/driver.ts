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

  // Later: deploySite / deleteSite (wordpress, n8n), setDomain, requestTls, backup, restore.

  /** Brings up the servers the driver supervises (or connects to the configured ones). */
  start(): Promise<void>;
  /** Closes admin connections and shuts the supervised servers down gracefully. */
  stop(): Promise<void>;
  health(): Promise<DriverHealth>;
}

export const DATABASE_TYPES = ['mysql', 'postgresql', 'mongodb'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

/** Instance types served by a site runtime; the driver reports them 'Coming soon' for now. */
export const SITE_TYPES = ['wordpress', 'n8n'] as const;
export type SiteType = (typeof SITE_TYPES)[number];

export const INSTANCE_TYPES = [...DATABASE_TYPES, ...SITE_TYPES] as const;
export type InstanceType = DatabaseType | SiteType;

export type Capability = { available: true } | { available: false; reason: string };
export type Capabilities = Record<InstanceType, Capability>;

export const COMING_SOON: Capability = { available: false, reason: 'Coming soon' };

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

/** The instance type cannot be provisioned here; `details.reason` says why (answered as a 409). */
export class ProvisioningUnavailableError extends ConflictError {
  constructor(type: InstanceType, reason: string) {
    super(`${type} is not available: ${reason}`, { type, reason });
  }
}
