import { randomBytes } from 'node:crypto';
import { DATABASE_PASSWORD_MESSAGE, FIELD_LIMITS, NO_CONTROL_CHARACTERS } from '@berth/openapi/rules';
import { ValidationError } from '../lib/errors.ts';

export interface TenantNames {
  /** Database name, `t_<key>`. */
  database: string;
  /** Login name, `u_<key>`. */
  user: string;
}

/**
 * The database and user names of an instance. Instance ids are uuids; '-' becomes '_' (ids may not
 * contain '_', so the mapping stays one-to-one) and anything outside [a-z0-9_] is refused, so the names
 * are safe identifiers on every engine (and shorter than their 63/64-character limits).
 */
export function tenantNames(instanceId: string): TenantNames {
  if (!/^[a-z0-9-]{1,50}$/.test(instanceId)) {
    throw new ValidationError(`Invalid instance id for provisioning: ${JSON.stringify(instanceId)}`);
  }
  const key = instanceId.replaceAll('-', '_');
  return { database: `t_${key}`, user: `u_${key}` };
}

/** A generated password: 32 URL-safe characters (192 random bits). */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

/** Passwords customers choose still go through here: no control characters, a sane length. */
export function checkPassword(password: string): string {
  const { min, max } = FIELD_LIMITS.databasePassword;
  if (password.length < min || password.length > max || !NO_CONTROL_CHARACTERS.test(password)) {
    throw new ValidationError(DATABASE_PASSWORD_MESSAGE);
  }
  return password;
}

/** The names of the tenant whose database is `database` (`t_<key>`), as tenantNames made them. */
export function tenantNamesOfDatabase(database: string): TenantNames {
  if (!/^t_[a-z0-9_]{1,50}$/.test(database)) throw new ValidationError(`Not a tenant database: ${database}`);
  return { database, user: `u_${database.slice(2)}` };
}

/** The instance id of a tenant database: tenantNames' mapping undone ('_' back to '-'). */
export const instanceIdOf = (database: string): string => database.slice(2).replaceAll('_', '-');
