/** The instance types Berth runs, and whether a driver can run each right now. */
export const DATABASE_TYPES = ['mysql', 'postgresql', 'mongodb'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

const APPLICATION_TYPES = ['wordpress', 'n8n'] as const;

export const INSTANCE_TYPES = [...DATABASE_TYPES, ...APPLICATION_TYPES] as const;
export type InstanceType = (typeof INSTANCE_TYPES)[number];

export type Capability = { available: true } | { available: false; reason: string };
export type Capabilities = Record<InstanceType, Capability>;
