/** The instance types Berth runs, and whether a driver can run each right now. */
export const DATABASE_TYPES = ['mysql', 'postgresql', 'mongodb'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

const APPLICATION_TYPES = ['wordpress', 'n8n'] as const;

export const INSTANCE_TYPES = [...DATABASE_TYPES, ...APPLICATION_TYPES] as const;
export type InstanceType = (typeof INSTANCE_TYPES)[number];

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

export type NotAvailable = { available: false } & Unavailable;
export type Capability = { available: true } | NotAvailable;
export type Capabilities = Record<InstanceType, Capability>;

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
