import type { INSTANCE_TYPE_CATALOGUE } from '@berth/openapi/rules';
import type { InstanceRow, InstanceSettings } from '../../../db/tables/instances.ts';
import type { ProvisioningDriver } from '../../../provisioning/driver.ts';
import type { BaseSpec, SpecOf } from '../../../provisioning/engine.ts';
import type { ApplicationType, InstanceType } from '../../../provisioning/instance-types.ts';
import { resourcesOf } from '../instance-resources.ts';
import type { StoredSecret } from '../instance-secrets.ts';
import type { DeployBody } from '../instances.schemas.ts';

/**
 * What one instance type is, in one place: its entry in the shared catalogue (its name and the
 * customer's words), the fields a deploy of it needs and their rules, the settings it keeps, the secrets
 * it holds, the spec its engine is deployed with, and what the API shows of it. The instances service
 * and the public API ask the kind (kinds.ts), never `if (type === …)`; how each driver runs it is its
 * engine's business (provisioning/engine.ts).
 */
export interface InstanceKind<T extends InstanceType> {
  readonly type: T;
  /** Its entry in @berth/openapi/rules' catalogue: name, category, deploy page words, connection. */
  readonly entry: (typeof INSTANCE_TYPE_CATALOGUE)[T];
  /**
   * What `/access` gives its owner: a database's connection details; a site's SFTP login (and its
   * database's details where customers can reach it); nothing yet.
   */
  readonly access: 'database' | 'site' | 'none';
  /**
   * Its data is encrypted with a key of its own (n8n's credentials): the key is in its secret, a
   * deleted instance's backups keep it sealed, and they restore only with it.
   */
  readonly ownKey: boolean;
  /** Where its fields sit in /api/v1's create body, by their names there (none: it takes no more). */
  readonly publicFields?: PublicFields;
  /**
   * The deploy's fields of this type, checked (a ValidationError with the field's message): the
   * settings kept on the row, what its secret holds besides the database password, the custom domain.
   */
  deployFields(body: DeployBody, context: DeployContext): Promise<KindFields>;
  /** The request its engine is deployed with, from the row and its (decrypted) secret. */
  request(row: InstanceRow, secret: StoredSecret): { type: T; spec: SpecOf[T] };
  /** What the API's instance shows of its settings. */
  shown(settings: InstanceSettings | null): { ownerEmail?: string };
  /** The deploy fields a new instance like a deleted one takes (a restore into a new instance). */
  redeployFields(kept: InstanceSettings | null, driver: ProvisioningDriver): Promise<Partial<DeployBody>>;
}

/** What a deploy knows besides its body. */
export interface DeployContext {
  driver: ProvisioningDriver;
  /** The driver is still starting (its packages may not be there yet): checks its answers cannot wait. */
  starting: boolean;
  /** A restore into a new instance: the key the backup's data is encrypted with (ownKey kinds). */
  keptKey?: string;
}

export interface KindFields {
  settings: InstanceSettings | null;
  /** What its secret holds besides the database password (generated here, or chosen by the customer). */
  secret: Omit<StoredSecret, 'password'>;
  /** The custom domain it is deployed with, checked and lower-cased; undefined for a temporary URL. */
  domain?: string;
}

/** The object of /api/v1's create body that holds a kind's fields, and each field's deploy body name. */
export interface PublicFields {
  group: ApplicationType;
  fields: Readonly<Record<string, 'title' | 'username' | 'email' | 'password' | 'phpversion'>>;
}

/** What every deploy request starts from: the instance's id, owner, region and what it was sold. */
export function baseSpecOf(row: InstanceRow): BaseSpec {
  // Values the row cannot express (none since the choices are checked) leave the driver's defaults.
  return { id: row.id, owner: row.user_id, region: row.region, resources: resourcesOf(row.memory, row.cpu) };
}
