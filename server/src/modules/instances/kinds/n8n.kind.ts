import { EMAIL_PATTERN, INSTANCE_TYPE_CATALOGUE, N8N_PASSWORD } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import type { InstanceSettings, N8nSettings } from '../../../db/tables/instances.ts';
import { ConflictError } from '../../../lib/errors.ts';
import { generatePassword } from '../../../provisioning/tenant-names.ts';
import { generateN8nKey } from '../instance-secrets.ts';
import { customDomainOf, parseFields } from './deploy-fields.ts';
import { baseSpecOf, type InstanceKind } from './instance-kind.ts';

/** The owner account of an n8n deploy: e-mail, password by n8n's own rules, a first name. */
const N8nFieldsSchema = z.object({
  email: z
    .string({ error: 'Owner email is required' })
    .trim()
    .min(1, 'Owner email is required')
    .max(254, 'Invalid email')
    .regex(EMAIL_PATTERN, 'Invalid email'),
  password: z
    .string({ error: 'Owner password is required' })
    .min(1, 'Owner password is required')
    // n8n's own rule (@berth/openapi/rules, which the UI checks too), one sentence for every part.
    .min(N8N_PASSWORD.min, N8N_PASSWORD.message)
    .max(N8N_PASSWORD.max, N8N_PASSWORD.message)
    .regex(N8N_PASSWORD.patterns[0], N8N_PASSWORD.message)
    .regex(N8N_PASSWORD.patterns[1], N8N_PASSWORD.message),
  username: z.string().trim().min(1).max(32, 'First name too long').optional(),
});

const isN8n = (settings: InstanceSettings | null): settings is N8nSettings =>
  settings !== null && 'ownerEmail' in settings;

/**
 * n8n: the owner account its editor is set up with (the password in its secret), its own encryption
 * key (generated once, kept encrypted; a restore brings the backup's), a custom domain if asked for.
 * It has no credentials to show yet.
 */
export const n8nKind: InstanceKind<'n8n'> = {
  type: 'n8n',
  entry: INSTANCE_TYPE_CATALOGUE.n8n,
  access: 'none',
  ownKey: true,
  publicFields: { group: 'n8n', fields: { ownerEmail: 'email', ownerPassword: 'password' } },

  async deployFields(body, { keptKey }) {
    const fields = parseFields(N8nFieldsSchema, body);
    return {
      settings: {
        ownerEmail: fields.email,
        ownerFirstName: fields.username ?? fields.email.split('@')[0] ?? 'Owner',
      },
      secret: { adminPassword: fields.password, n8nKey: keptKey ?? generateN8nKey() },
      domain: customDomainOf(body),
    };
  },

  request(row, secret) {
    const { settings } = row;
    if (!isN8n(settings) || !secret.adminPassword || !secret.n8nKey)
      throw new ConflictError('its n8n settings are missing');
    return {
      type: 'n8n',
      spec: {
        ...baseSpecOf(row),
        ownerEmail: settings.ownerEmail,
        ownerPassword: secret.adminPassword,
        ownerFirstName: settings.ownerFirstName,
        encryptionKey: secret.n8nKey,
      },
    };
  },

  shown: (settings) => (isN8n(settings) ? { ownerEmail: settings.ownerEmail } : {}),

  /** The restored data has its own owner: a new password by n8n's rules (a number and a capital). */
  async redeployFields(kept) {
    if (!isN8n(kept)) return {};
    return {
      domainType: 'Temporary',
      email: kept.ownerEmail,
      username: kept.ownerFirstName,
      password: `${generatePassword().slice(0, 40)}N8`,
    };
  },
};
