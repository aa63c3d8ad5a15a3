import { INSTANCE_TYPE_CATALOGUE } from '@berth/openapi/rules';

/** The instance types Berth runs, and whether a driver can run each right now. */
export const DATABASE_TYPES = ['mysql', 'postgresql', 'mongodb'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

const APPLICATION_TYPES = ['wordpress', 'n8n'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

export const INSTANCE_TYPES = [...DATABASE_TYPES, ...APPLICATION_TYPES] as const;
export type InstanceType = (typeof INSTANCE_TYPES)[number];

/**
 * What customers can use of an instance besides running it (deploy, delete, suspend, resume), feature
 * by feature. Which ones a type has is its nature, the same on every driver (TYPE_FEATURES); whether a
 * driver offers each one, or why not, its engine declares (engine.ts `features`), and the contract suite
 * (test/contract/) holds every driver to its declaration.
 */
const FEATURES = [
  /** A new database password, old sessions ended. */
  'password',
  /** A custom domain over HTTPS, and its certificate. */
  'domains',
  /** An SFTP login to the site's files. */
  'sftp',
  /** How much of its disk it uses, and its limit. */
  'storage',
  /** CPU, memory, disk and requests sampled over time (the Usage tab, warnings). */
  'usage',
  /** Backups and restores (manual, scheduled, downloads). */
  'backups',
  /** A database administration page in the browser (phpMyAdmin). */
  'databaseAdmin',
] as const;
export type Feature = (typeof FEATURES)[number];

export const TYPE_FEATURES = {
  mysql: ['password', 'storage', 'usage', 'backups', 'databaseAdmin'],
  postgresql: ['password', 'storage', 'usage', 'backups'],
  mongodb: ['password', 'storage', 'usage', 'backups'],
  wordpress: ['domains', 'sftp', 'storage', 'usage', 'backups', 'databaseAdmin'],
  n8n: ['domains', 'storage', 'usage', 'backups'],
} as const satisfies Record<InstanceType, readonly Feature[]>;

/** The name customers read for a type, from the shared catalogue. */
const label = (type: InstanceType): string => INSTANCE_TYPE_CATALOGUE[type].name;

/**
 * Why a type cannot be deployed now, twice: `reason` in the customer's words (the deploy page, API
 * errors, an instance's status message), and `detail`, the operator's (what is missing on the host, the
 * command that fixes it), which only the Admin Panel and the server log show.
 */
export interface Unavailable {
  reason: string;
  detail?: string;
}

export type NotAvailable = { available: false } & Unavailable;
export type Capability = { available: true } | NotAvailable;
export type Capabilities = Record<InstanceType, Capability>;

/** The customer's words for each way a type can be unavailable; the operator's `detail` rides along. */
export const unavailable = {
  /** This server cannot run the type at all (no server for it, a host package missing, turned off). */
  notOffered: (type: InstanceType, detail?: string): NotAvailable => ({
    available: false,
    reason: `${label(type)} is not offered on this server`,
    detail,
  }),
  /** It is being installed or started, and will be available without anyone doing anything. */
  settingUp: (type: InstanceType, detail?: string, minutesLeft?: number): NotAvailable => ({
    available: false,
    reason: `${label(type)} is being set up on this server; it will be ready in ${
      minutesLeft === undefined
        ? 'a few minutes'
        : `about ${minutesLeft} minute${minutesLeft === 1 ? '' : 's'}`
    }`,
    detail,
  }),
  /** It ran here but does not now (a server stopped, a start failed): the operator has to look. */
  down: (type: InstanceType, detail?: string): NotAvailable => ({
    available: false,
    reason: `${label(type)} is temporarily unavailable on this server; please try again later`,
    detail,
  }),
};
