import { EMAIL_PATTERN, isN8nPassword, N8N_PASSWORD } from '@berth/openapi/rules';
import { ValidationError } from '../../../lib/errors.ts';
import type { N8nSpec } from '../../engine.ts';

/**
 * The owner account a deploy creates with n8n's own setup call, checked before anything is made (both
 * drivers): n8n's password rule (rules.ts, the same the API checks), an e-mail n8n accepts, and an
 * encryption key long enough to protect the instance's credentials.
 */
export function checkN8nOwner(spec: N8nSpec): void {
  if (!isN8nPassword(spec.ownerPassword)) throw new ValidationError(N8N_PASSWORD.message);
  if (!EMAIL_PATTERN.test(spec.ownerEmail)) throw new ValidationError('The owner e-mail is not valid');
  if (spec.encryptionKey.length < 16) throw new ValidationError('The n8n encryption key is too short');
}
