import { DEFAULT_CPU, DEFAULT_MEMORY, DEFAULT_REGION, REGIONS, type RegionId } from '@berth/openapi/rules';
import { DATABASE_TYPES, type DatabaseType, type InstanceType } from '../../provisioning/instance-types.ts';

/**
 * What customers can deploy and where: display names, categories and regions.
 * Pure data; the API speaks display names ('MySQL'), the database and the driver lower-case ids.
 */

export interface TypeInfo {
  /** Display name, as the API's `type` field gives it. */
  name: 'MySQL' | 'PostgreSQL' | 'MongoDB' | 'WordPress' | 'n8n';
  category: 'application' | 'database';
  /** The `metadata` flag the UI recognises databases by. */
  flag?: 'mysql' | 'postgres' | 'mongo';
  /** Default port of the engine's clients. */
  port?: number;
  /** URL scheme of the connection string. */
  scheme?: 'mysql' | 'postgresql' | 'mongodb';
}

export const TYPE_INFO: Record<InstanceType, TypeInfo> = {
  mysql: { name: 'MySQL', category: 'database', flag: 'mysql', port: 3306, scheme: 'mysql' },
  postgresql: {
    name: 'PostgreSQL',
    category: 'database',
    flag: 'postgres',
    port: 5432,
    scheme: 'postgresql',
  },
  mongodb: { name: 'MongoDB', category: 'database', flag: 'mongo', port: 27017, scheme: 'mongodb' },
  wordpress: { name: 'WordPress', category: 'application' },
  n8n: { name: 'n8n', category: 'application' },
};

export const TYPE_NAMES = ['MySQL', 'PostgreSQL', 'MongoDB', 'WordPress', 'n8n'] as const;

/** Every spelling a request may use for a type: the display name or the id, any case; `postgres` too. */
export function typeFromInput(input: string): InstanceType | undefined {
  const key = input.trim().toLowerCase();
  if (key === 'postgres') return 'postgresql';
  return (Object.keys(TYPE_INFO) as InstanceType[]).find((type) => type === key);
}

export function isDatabaseType(type: InstanceType): type is DatabaseType {
  return (DATABASE_TYPES as readonly string[]).includes(type);
}

/** The regions (shared with the UI: @berth/openapi/rules), as a tuple for the request schema's enum. */
export const REGION_IDS = REGIONS.map((region) => region.id) as [RegionId, ...RegionId[]];
/** The spec's defaults for the resources (quick deploy 4GB, 2 CPU) live with the choices in the rules. */
export { DEFAULT_CPU, DEFAULT_MEMORY, DEFAULT_REGION, type RegionId };

/** Page size of the instance list: default 24, at most 1000 (the UI asks for 1000 while filtering). */
export const DEFAULT_PAGE_SIZE = 24;
export const MAX_PAGE_SIZE = 1000;
