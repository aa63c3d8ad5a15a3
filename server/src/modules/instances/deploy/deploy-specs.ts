import type { InstanceRow } from '../../../db/tables/instances.ts';
import type { SpecOf } from '../../../provisioning/engine.ts';
import type { InstanceType } from '../../../provisioning/instance-types.ts';
import type { StoredSecret } from '../instance-secrets.ts';
import { kindOf } from '../kinds/kinds.ts';

/**
 * What each type's engine is deployed with, made by its kind from the instance row and its stored
 * (decrypted) secret: the very same passwords and keys on every deploy, so a retry or a reconcile gives
 * the same credentials.
 */
export type DeployRequest = { [T in InstanceType]: { type: T; spec: SpecOf[T] } }[InstanceType];

export function deployRequestOf(row: InstanceRow, secret: StoredSecret): DeployRequest {
  return kindOf(row.type).request(row, secret);
}
