import type { ProvisioningDriver } from '../../../provisioning/driver.ts';

/** The version a WordPress deploy takes when it names none, where the host has it. */
export const DEFAULT_PHP_VERSION = '8.2';

/** The PHP versions a WordPress site may run on here, newest first, and the one a deploy takes by default. */
export interface PhpChoices {
  versions: string[];
  default: string | null;
}

/**
 * What the WordPress engine says the host has. While the driver's start may still bring WordPress and
 * no version is known yet (packages being installed), the default is what a deploy would take.
 */
export async function phpChoices(driver: ProvisioningDriver, starting: boolean): Promise<PhpChoices> {
  const found = [...((await driver.engine('wordpress').php?.versions()) ?? [])];
  const versions = found.sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
  if (versions.length === 0)
    return starting
      ? { versions: [DEFAULT_PHP_VERSION], default: DEFAULT_PHP_VERSION }
      : { versions, default: null };
  return {
    versions,
    default: versions.includes(DEFAULT_PHP_VERSION) ? DEFAULT_PHP_VERSION : (versions[0] ?? null),
  };
}

/** The customer's words for a PHP version this server does not offer. */
export function phpUnavailable(version: string, versions: readonly string[]): string {
  if (versions.length === 0)
    return `PHP ${version} is not available on this server: it offers no PHP version yet.`;
  const offered = versions.map((v) => `PHP ${v}`);
  const choose =
    offered.length === 1 ? offered[0] : `${offered.slice(0, -1).join(', ')} or ${offered.at(-1)}`;
  return `PHP ${version} is not available on this server. Choose ${choose}.`;
}
