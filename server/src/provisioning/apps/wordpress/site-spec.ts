import { EMAIL_PATTERN } from '@berth/openapi/rules';
import { ValidationError } from '../../../lib/errors.ts';
import type { SiteSpec } from '../../engine.ts';
import { checkPassword } from '../../tenant-names.ts';

/** Checks a site spec beyond its type: what WordPress' installer and our files accept. */

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

export function checkSiteSpec(spec: SiteSpec): SiteSpec {
  const title = spec.title.trim();
  if (title.length < 1 || title.length > 200 || CONTROL.test(title)) {
    throw new ValidationError('The site title must be 1 to 200 characters');
  }
  // WordPress' sanitize_user (strict) keeps letters, digits, space, _ . - @.
  if (!/^[A-Za-z0-9_.@-][A-Za-z0-9 _.@-]{1,58}[A-Za-z0-9_.@-]$/.test(spec.adminUser)) {
    throw new ValidationError('The admin username must be 3 to 60 letters, digits, spaces or _ . - @');
  }
  if (!EMAIL_PATTERN.test(spec.adminEmail) || spec.adminEmail.length > 100) {
    throw new ValidationError('The admin e-mail address is not valid');
  }
  if (spec.adminPassword.length < 8 || spec.adminPassword.length > 128 || CONTROL.test(spec.adminPassword)) {
    throw new ValidationError('The admin password must be 8 to 128 characters without control characters');
  }
  if (spec.databasePassword !== undefined) checkPassword(spec.databasePassword);
  if (spec.sftpPassword !== undefined && (spec.sftpPassword.length < 8 || CONTROL.test(spec.sftpPassword))) {
    throw new ValidationError('An SFTP password must be at least 8 characters without control characters');
  }
  return { ...spec, title };
}
