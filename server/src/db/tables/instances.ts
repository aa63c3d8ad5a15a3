import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export const INSTANCE_STATUSES = [
  'deploying',
  'running',
  'suspended',
  'error',
  'deleting',
  'restoring',
] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

export interface InstanceTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  /** mysql, postgresql, mongodb, wordpress, n8n (the display names live in the API schemas). */
  type: 'mysql' | 'postgresql' | 'mongodb' | 'wordpress' | 'n8n';
  category: 'application' | 'database';
  region: string;
  /** Nominal resources, as the deploy payload gave them (e.g. '4GB', '2'). */
  memory: string;
  cpu: string;
  /**
   * Where the instance is: deploying until the deploy job succeeds (running, or suspended when the
   * subscription lapsed meanwhile) or gives up (error); deleting until the delete job removes the row;
   * restoring while a backup is being restored into it (then running again, or error).
   */
  status: InstanceStatus;
  /** Why it is in error (or what last went wrong); null when all is well. */
  status_message: string | null;
  /** What the subscription asks for: logins refused. Jobs bring the tenant in line with it. */
  suspended: ColumnType<boolean, boolean | undefined, boolean>;
  /** When the first deploy succeeded; null while it never has. */
  deployed_at: Date | null;
  /**
   * What it was deployed with besides its resources, in its type's shape (modules/instances/kinds/):
   * WordPress its site, n8n its owner account; null for databases. Passwords are in the encrypted secret.
   */
  settings: ColumnType<InstanceSettings | null, InstanceSettings | null | undefined, InstanceSettings | null>;
  /** Where the site answers (custom domain over HTTPS, else the temporary URL), once deployed. */
  url: ColumnType<string | null, string | null | undefined, string | null>;
  admin_url: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The custom domain (verified or attached ones are unique over all instances; several accounts may
   * have the same one pending) and when it was added.
   */
  custom_domain: ColumnType<string | null, string | null | undefined, string | null>;
  domain_added_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /**
   * Proof of ownership of the custom domain: pending until the TXT record `_berth-verify.<domain>`
   * holds `berth-verify=<domain_token>`, verified then, attached once the driver serves it; failed when
   * it was not proven in time or another account holds it. All null without a custom domain.
   */
  domain_status: ColumnType<DomainStatus | null, DomainStatus | null | undefined, DomainStatus | null>;
  domain_token: ColumnType<string | null, string | null | undefined, string | null>;
  domain_checked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** What the last check found. */
  domain_message: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last SSL probe of the custom domain; null before the first one. */
  ssl: ColumnType<StoredSsl | null, StoredSsl | null | undefined, StoredSsl | null>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date>;
}

export const DOMAIN_STATUSES = ['pending', 'verified', 'attached', 'failed'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** A WordPress site's settings: its title, admin account and PHP version. */
export interface WordPressSettings {
  title: string;
  adminUser: string;
  adminEmail: string;
  phpVersion: string;
}

/** An n8n instance's settings: the owner account its editor is set up with. */
export interface N8nSettings {
  ownerEmail: string;
  ownerFirstName: string;
}

export type InstanceSettings = WordPressSettings | N8nSettings;

export interface StoredSsl {
  status: 'Active' | 'Pending' | 'FAILED';
  message: string;
  lastChecked: string;
  expiresAt: string | null;
}

export type InstanceRow = Selectable<InstanceTable>;
export type NewInstanceRow = Insertable<InstanceTable>;
export type InstanceRowUpdate = Updateable<InstanceTable>;

export interface InstanceCredentialsTable {
  instance_id: string;
  /**
   * The credentials in force, encrypted (lib/crypto.ts) JSON: the password from the deploy request on,
   * host, port, database and user once the deploy has run.
   */
  secret: string;
  /** A requested password change not applied yet, encrypted; null when none is pending. */
  pending_password: string | null;
  /** Why the last password change failed; null after a success. */
  password_error: string | null;
  updated_at: ColumnType<Date, never, Date>;
}

export type InstanceCredentialsRow = Selectable<InstanceCredentialsTable>;

/** One backup of an instance, kept in the platform's backup storage (server/src/backup-storage/). */
export interface InstanceBackupTable {
  /** `b-` and 12 hex digits. */
  id: string;
  /** The instance it was made of (its place in the store); no foreign key: backups outlive it. */
  instance_id: string;
  /** Its owner (the instance's), who may restore it into a new instance once the instance is gone. */
  user_id: string;
  /** The type of the instance it was made of. */
  instance_type: InstanceTable['type'];
  /** Null while the instance exists; once it was deleted, what a restore into a new one needs. */
  deleted_instance: ColumnType<DeletedInstance | null, string | null | undefined, string | null>;
  kind: 'scheduled' | 'manual';
  name: string;
  note: ColumnType<string, string | undefined, string>;
  /** running until every part is stored and checked (a backup cut short never reads as complete). */
  status: 'running' | 'complete' | 'failed';
  /** What a running backup is doing now. */
  step: string | null;
  /** Why it failed, in the customer's words (with the log reference). */
  error: string | null;
  /** Bytes written so far (before encryption); int8 comes back from pg as a string. */
  bytes: ColumnType<string, number | undefined, number>;
  /** Bytes stored (encrypted), once complete. */
  size: ColumnType<string, number | undefined, number>;
  location: 'local' | 's3';
  parts: ColumnType<StoredBackupPart[], string | undefined, string>;
  facts: ColumnType<Record<string, number>, string | undefined, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
  completed_at: Date | null;
}

/** What a backup keeps of the instance it was made of once that instance was deleted. */
export interface DeletedInstance {
  name: string;
  region: string;
  memory: string;
  cpu: string;
  /** The settings it ran with (its type's shape; null for databases). */
  settings: InstanceSettings | null;
  /** n8n: its encryption key (the backup's credentials are encrypted with it), sealed by the cipher. */
  sealedKey: string | null;
  deletedAt: string;
}

/** A place in the backup store no backup record names, and when the sweep first found it. */
export interface BackupStoreOrphanTable {
  /** `instances/<instance id>/<backup id>`. */
  prefix: string;
  found_at: Date;
}

/** What the last sweep of the backup store found (one row), for the admin. */
export interface BackupStoreSweepTable {
  id: ColumnType<number, number | undefined, never>;
  swept_at: Date;
  /** Places in the store no record names. */
  orphans: number;
  /** Complete backups whose files are missing from the store. */
  missing: number;
  /** Orphans removed by that sweep (past their grace period). */
  removed: number;
}

export interface StoredBackupPart {
  name: string;
  size: number;
  sha256: string;
  plainSize: number;
}

export type InstanceBackupRow = Selectable<InstanceBackupTable>;

/** A backup download link that was used (a link works once), kept until it would have expired. */
export interface BackupDownloadUseTable {
  /** The link's own id (its `jti`). */
  link_id: string;
  backup_id: string;
  expires_at: Date;
}
