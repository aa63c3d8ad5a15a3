import type { InstanceRow } from '../../db/tables/instances.ts';
import { ConflictError } from '../../lib/errors.ts';
import type { SpecOf } from '../../provisioning/engine.ts';
import type { InstanceType } from '../../provisioning/instance-types.ts';
import { resourcesOf } from './instance-resources.ts';
import type { StoredSecret } from './instance-secrets.ts';

/**
 * What each type's engine is deployed with, made from the instance row and its stored (decrypted)
 * secret: the very same passwords and keys on every deploy, so a retry or a reconcile gives the same
 * credentials.
 */
export type DeployRequest = { [T in InstanceType]: { type: T; spec: SpecOf[T] } }[InstanceType];

export function deployRequestOf(row: InstanceRow, secret: StoredSecret): DeployRequest {
  // Values the row cannot express (none since the choices are checked) leave the driver's defaults.
  const resources = resourcesOf(row.memory, row.cpu);
  const base = { id: row.id, owner: row.user_id, region: row.region, resources };
  const settings = row.site;
  switch (row.type) {
    case 'wordpress':
      if (!settings || !secret.adminPassword || !secret.sftpPassword)
        throw new ConflictError('its WordPress settings are missing');
      return {
        type: 'wordpress',
        spec: {
          ...base,
          title: settings.title,
          adminUser: settings.adminUser,
          adminEmail: settings.adminEmail,
          adminPassword: secret.adminPassword,
          phpVersion: settings.phpVersion,
          databasePassword: secret.password,
          sftpPassword: secret.sftpPassword,
        },
      };
    case 'n8n':
      if (!settings || !secret.adminPassword || !secret.n8nKey)
        throw new ConflictError('its n8n settings are missing');
      return {
        type: 'n8n',
        spec: {
          ...base,
          ownerEmail: settings.adminEmail,
          ownerPassword: secret.adminPassword,
          ownerFirstName: settings.adminUser,
          encryptionKey: secret.n8nKey,
        },
      };
    default:
      return { type: row.type, spec: { ...base, password: secret.password } };
  }
}
