import {
  DEFAULT_CPU,
  DEFAULT_MEMORY,
  DEFAULT_REGION,
  INSTANCE_TYPE_CATALOGUE,
  INSTANCE_TYPE_IDS,
  type InstanceTypeEntry,
  type InstanceTypeName,
  REGIONS,
  type RegionId,
} from '@berth/openapi/rules';
import { DATABASE_TYPES, type DatabaseType, type InstanceType } from '../../provisioning/instance-types.ts';

/**
 * What customers can deploy and where: type names and regions, from the shared catalogue
 * (@berth/openapi/rules). The API speaks display names ('MySQL'), the database and the driver ids.
 * What each type is beyond its name lives in its kind (kinds/).
 */

/** The catalogue's types; one the server has no type for fails to compile here. */
const TYPE_IDS: readonly InstanceType[] = INSTANCE_TYPE_IDS;

/** The name customers read for a type ('MySQL'). */
export const typeName = (type: InstanceType): InstanceTypeName => INSTANCE_TYPE_CATALOGUE[type].name;

/** Every type's name, in the catalogue's order (the API's `type` enum). */
export const TYPE_NAMES = TYPE_IDS.map(typeName) as [InstanceTypeName, ...InstanceTypeName[]];

/** Every spelling a request may use for a type: the display name, the id or an alias, any case. */
export function typeFromInput(input: string): InstanceType | undefined {
  const key = input.trim().toLowerCase();
  return TYPE_IDS.find(
    (type) => type === key || typeName(type).toLowerCase() === key || aliasesOf(type).includes(key),
  );
}

function aliasesOf(type: InstanceType): readonly string[] {
  const entry: InstanceTypeEntry = INSTANCE_TYPE_CATALOGUE[type];
  return entry.aliases ?? [];
}

/** The other spellings of types requests may use ('postgres'), as the API documents them. */
export const TYPE_ALIASES = TYPE_IDS.flatMap(aliasesOf);

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
