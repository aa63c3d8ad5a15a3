import { randomBytes } from 'node:crypto';

/** The eight WordPress keys and salts. */
export const SALT_NAMES = [
  'AUTH_KEY',
  'SECURE_AUTH_KEY',
  'LOGGED_IN_KEY',
  'NONCE_KEY',
  'AUTH_SALT',
  'SECURE_AUTH_SALT',
  'LOGGED_IN_SALT',
  'NONCE_SALT',
] as const;

/** Fresh keys and salts for a new site (its wp-config.php; kept, so that a redeploy signs nobody out). */
export function generateSalts(): Record<string, string> {
  return Object.fromEntries(SALT_NAMES.map((name) => [name, randomBytes(48).toString('base64')]));
}
