import {
  EMAIL_PATTERN,
  INSTANCE_TYPE_CATALOGUE,
  INVALID_PHP_VERSION_MESSAGE,
  PHP_VERSION_PATTERN,
  WORDPRESS_ADMIN,
} from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import type { InstanceSettings, WordPressSettings } from '../../../db/tables/instances.ts';
import { ConflictError, ValidationError } from '../../../lib/errors.ts';
import type { ProvisioningDriver } from '../../../provisioning/driver.ts';
import { generatePassword } from '../../../provisioning/tenant-names.ts';
import { customDomainOf, parseFields } from './deploy-fields.ts';
import { baseSpecOf, type InstanceKind } from './instance-kind.ts';

/** The WordPress fields of a deploy, checked once the type is known to be available. */
const WordPressFieldsSchema = z.object({
  title: z
    .string({ error: 'Site title is required' })
    .trim()
    .min(1, 'Site title is required')
    .max(WORDPRESS_ADMIN.titleMax, 'Site title too long'),
  username: z
    .string({ error: 'Admin username is required' })
    .trim()
    .min(1, 'Admin username is required')
    .max(WORDPRESS_ADMIN.usernameMax, 'Admin username too long'),
  email: z
    .string({ error: 'Admin email is required' })
    .trim()
    .min(1, 'Admin email is required')
    .regex(EMAIL_PATTERN, 'Invalid email'),
  password: z
    .string({ error: 'Admin password is required' })
    .min(1, 'Admin password is required')
    .min(WORDPRESS_ADMIN.passwordMin, WORDPRESS_ADMIN.passwordShort)
    .max(WORDPRESS_ADMIN.passwordMax, WORDPRESS_ADMIN.passwordLong),
  phpversion: z
    .string()
    .trim()
    .min(1, 'Please enter a PHP version')
    .regex(PHP_VERSION_PATTERN, INVALID_PHP_VERSION_MESSAGE)
    .optional(),
});

const isSite = (settings: InstanceSettings | null): settings is WordPressSettings =>
  settings !== null && 'phpVersion' in settings;

/** The version a WordPress deploy takes when it names none, where the host has it. */
const DEFAULT_PHP_VERSION = '8.2';

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
function phpUnavailable(version: string, versions: readonly string[]): string {
  if (versions.length === 0)
    return `PHP ${version} is not available on this server: it offers no PHP version yet.`;
  const offered = versions.map((v) => `PHP ${v}`);
  const choose =
    offered.length === 1 ? offered[0] : `${offered.slice(0, -1).join(', ')} or ${offered.at(-1)}`;
  return `PHP ${version} is not available on this server. Choose ${choose}.`;
}

/**
 * A WordPress site: its title, admin account and PHP version (the admin password in its secret, with
 * the SFTP password and its database's), a custom domain if asked for; `/access` gives its SFTP login.
 */
export const wordpressKind: InstanceKind<'wordpress'> = {
  type: 'wordpress',
  entry: INSTANCE_TYPE_CATALOGUE.wordpress,
  access: 'site',
  ownKey: false,
  publicFields: {
    group: 'wordpress',
    fields: {
      siteTitle: 'title',
      adminUsername: 'username',
      adminEmail: 'email',
      adminPassword: 'password',
      phpVersion: 'phpversion',
    },
  },

  /**
   * The PHP version is checked against those the host has (the choices GET /capabilities offers). While
   * the driver is still starting and the host has none yet (packages being installed), the version
   * asked for (else the default) is taken; the deploy job's driver call checks it once the start ended.
   */
  async deployFields(body, { driver, starting }) {
    const fields = parseFields(WordPressFieldsSchema, body);
    const choices = await phpChoices(driver, false);
    const versions =
      starting && choices.versions.length === 0
        ? [fields.phpversion ?? DEFAULT_PHP_VERSION]
        : choices.versions;
    const phpVersion = fields.phpversion ?? choices.default ?? versions[0];
    if (!phpVersion || !versions.includes(phpVersion)) {
      const message = phpUnavailable(phpVersion ?? DEFAULT_PHP_VERSION, versions);
      throw new ValidationError(message, { fieldErrors: { phpversion: [message] } });
    }
    return {
      settings: { title: fields.title, adminUser: fields.username, adminEmail: fields.email, phpVersion },
      secret: { sftpPassword: generatePassword(), adminPassword: fields.password },
      domain: customDomainOf(body),
    };
  },

  request(row, secret) {
    const { settings } = row;
    if (!isSite(settings) || !secret.adminPassword || !secret.sftpPassword)
      throw new ConflictError('its WordPress settings are missing');
    return {
      type: 'wordpress',
      spec: {
        ...baseSpecOf(row),
        title: settings.title,
        adminUser: settings.adminUser,
        adminEmail: settings.adminEmail,
        adminPassword: secret.adminPassword,
        phpVersion: settings.phpVersion,
        databasePassword: secret.password,
        sftpPassword: secret.sftpPassword,
      },
    };
  },

  shown: () => ({}),

  /**
   * The restore brings back the site's database (its admin and password with it) and its files; the PHP
   * version it ran on when this server still offers it.
   */
  async redeployFields(kept, driver) {
    if (!isSite(kept)) return {};
    const { versions } = await phpChoices(driver, false);
    return {
      domainType: 'Temporary',
      title: kept.title,
      username: kept.adminUser,
      email: kept.adminEmail,
      password: generatePassword(),
      ...(versions.includes(kept.phpVersion) && { phpversion: kept.phpVersion }),
    };
  },
};
