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

/** How a driver reaches an instance's n8n: a method, a path and a JSON body; the status and text. */
export type N8nCall = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; text: string }>;

/**
 * Makes the deploy's credentials n8n's owner account with n8n's own setup call (both drivers). n8n gives
 * its owner account to whoever asks first. An owner already there (an earlier try of this deploy that
 * got no answer) is kept only when the deploy's credentials sign in as it, so that an instance someone
 * else claimed first is never handed to the customer as theirs: the deploy fails instead.
 */
export async function setUpN8nOwner(call: N8nCall, spec: N8nSpec): Promise<void> {
  const { status, text } = await call('POST', '/rest/owner/setup', {
    email: spec.ownerEmail,
    firstName: spec.ownerFirstName ?? spec.ownerEmail.split('@')[0] ?? 'Owner',
    lastName: spec.ownerLastName ?? 'Owner',
    password: spec.ownerPassword,
  });
  if (status === 200 && text.includes(`"email":${JSON.stringify(spec.ownerEmail)}`)) return;
  if (status !== 400 || !/already setup/i.test(text))
    throw new Error(`n8n owner setup answered ${status}: ${text.slice(0, 300)}`);
  const login = await call('POST', '/rest/login', {
    emailOrLdapLoginId: spec.ownerEmail,
    password: spec.ownerPassword,
  });
  if (login.status !== 200)
    throw new Error(
      `n8n already has an owner, and the deploy's credentials do not sign in as it (login answered ${login.status})`,
    );
}
