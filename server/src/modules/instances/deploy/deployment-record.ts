import type { Db, DbOrTx } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import type { Cipher } from '../../../lib/crypto.ts';
import type { Deployment } from '../../../provisioning/engine.ts';
import type { NotificationsService } from '../../notifications/notifications.service.ts';
import { openSecret, type StoredSecret, sealSecret } from '../instance-secrets.ts';
import { findCredentials, updateCredentials } from '../instances.repository.ts';
import { label } from '../queue/instance-task-context.ts';

/**
 * What the customer is told when a deploy of an instance that ran before changed where it is reached: a
 * database that moved from the shared server onto a server of its own (a new port, TLS required), or
 * any other new address. Undefined when nothing changed (or it never ran).
 */
function movedMessage(
  row: InstanceRow,
  before: StoredSecret,
  now: { host: string; port: number; tls?: { caPem: string | null } },
): string | undefined {
  if (row.deployed_at === null || before.port === undefined || before.host === undefined) return undefined;
  if (before.host === now.host && before.port === now.port) return undefined;
  const address = `${now.host.includes(':') ? `[${now.host}]` : now.host}:${now.port}`;
  if (now.tls && !before.tls)
    return (
      `Your ${label(row)} now runs on a server of its own. Connect to ${address} (port ${now.port}) ` +
      'over an encrypted connection: its page has the certificate to download and the command to use. ' +
      `Its database, user and password are the same; the old port ${before.port} no longer answers.`
    );
  return `Your ${label(row)} is now reached at ${address}; ${before.host}:${before.port} no longer answers. Its database, user and password are the same.`;
}

/**
 * Records what a deploy answered (the deploy job's, a recovery's): the connection details beside the
 * stored passwords, and a notice to the customer when where the instance is reached changed.
 */
export async function recordDeployment(
  trx: DbOrTx,
  deps: { cipher: Cipher; notifications: Pick<NotificationsService, 'notify'> },
  row: InstanceRow,
  secret: StoredSecret,
  deployment: Deployment,
): Promise<void> {
  const { cipher, notifications } = deps;
  const { database: credentials, sftp } = deployment;
  await updateCredentials(trx, row.id, {
    secret: sealSecret(cipher, row.id, {
      ...secret,
      ...(credentials && {
        host: credentials.host,
        port: credentials.port,
        database: credentials.database,
        user: credentials.user,
        tls: credentials.tls ?? null,
        phpmyadmin: credentials.phpmyadmin ?? null,
      }),
      ...(sftp && { sftpHost: sftp.host, sftpPort: sftp.port, sftpUser: sftp.user }),
    }),
  });
  const moved = credentials && movedMessage(row, secret, credentials);
  if (moved) {
    await notifications.notify(
      row.user_id,
      { type: 'instance', title: 'Connection details changed', message: moved },
      trx,
    );
  }
}

/**
 * After a deploy of an instance that ran before (a recovery, a move to another server): its connection
 * details recorded beside its stored passwords, and its owner told when where it is reached changed.
 */
export async function recordRedeployment(
  db: Db,
  deps: { cipher: Cipher; notifications: Pick<NotificationsService, 'notify'> },
  row: InstanceRow,
  deployment: Deployment,
): Promise<void> {
  const stored = await findCredentials(db, row.id);
  if (!stored) return;
  const secret = openSecret(deps.cipher, row.id, stored.secret);
  await db.transaction().execute((trx) => recordDeployment(trx, deps, row, secret, deployment));
}
