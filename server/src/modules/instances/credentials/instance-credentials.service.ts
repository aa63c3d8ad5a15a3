import { setTimeout as sleep } from 'node:timers/promises';
import { SITE_DATABASE_CONNECTION } from '@berth/openapi/rules';
import type { Db } from '../../../db/database.ts';
import type { Cipher } from '../../../lib/crypto.ts';
import {
  ConflictError,
  NotFoundError,
  OperationFailedError,
  SubscriptionInactiveError,
  ValidationError,
} from '../../../lib/errors.ts';
import { isDatabaseType, typeName } from '../instance-catalog.ts';
import { offerOf, requireFeature } from '../instance-features.ts';
import { openSecret, sealPendingPassword } from '../instance-secrets.ts';
import type { InstancesContext } from '../instances.context.ts';
import { findCredentials, updateCredentials } from '../instances.repository.ts';
import type { ChangePasswordBody, DatabaseAccess } from '../instances.schemas.ts';
import { kindOf } from '../kinds/kinds.ts';
import { enqueueInstanceJob, type OperationBudgets } from '../queue/instance-jobs.ts';
import { CA_FILE_NAME, connectionString } from './connection-string.ts';

const PASSWORD_WHEN_INACTIVE = 'Subscription inactive — changing passwords is disabled.';
const PASSWORD_TYPES_ONLY = 'Only MongoDB or MySQL password changes are supported';

export interface InstanceCredentialsDeps {
  db: Db;
  cipher: Cipher;
  budgets: OperationBudgets;
  /** How long a password change waits for its job before answering 202. */
  passwordWaitMs: number;
}

/**
 * An instance's connection details (decrypted from what its deploy stored) and database password
 * changes, which a job applies through the engine of its type.
 */
export type InstanceCredentialsService = ReturnType<typeof createInstanceCredentialsService>;

export function createInstanceCredentialsService(
  { db, cipher, budgets, passwordWaitMs }: InstanceCredentialsDeps,
  ctx: InstancesContext,
) {
  const { own, standing, engineOf } = ctx;
  return {
    /** 'preparing' while the deploy runs; the connection details once it has succeeded. */
    async access(userId: string, id: string): Promise<{ preparing: true } | DatabaseAccess> {
      const row = await own(userId, id);
      const { access, entry } = kindOf(row.type);
      if (access === 'none') throw new ConflictError(`${entry.name} instances have no credentials yet`);
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (row.status === 'deploying' && row.deployed_at === null) return { preparing: true };
      const stored = await findCredentials(db, row.id);
      const secret = stored && openSecret(cipher, row.id, stored.secret);
      const database =
        secret?.host && secret.port && secret.database && secret.user
          ? {
              host: secret.host,
              port: secret.port,
              name: secret.database,
              user: secret.user,
              password: secret.password,
            }
          : null;
      // A deployed site whose database no customer can reach (a swarm keeps it on the site's own
      // network) has no connection details, only its SFTP login.
      const siteOnly = access === 'site' && row.deployed_at !== null;
      if (!secret || (!database && !siteOnly)) {
        throw new ConflictError(
          row.status_message
            ? `No credentials: ${row.status_message}`
            : 'The instance has no credentials yet',
        );
      }
      // SFTP only where the engine offers it (the instance's `features.sftp` says why not).
      const sftp =
        access === 'site' &&
        offerOf(engineOf(row), 'sftp') === true &&
        secret.sftpPassword &&
        secret.sftpHost &&
        secret.sftpPort &&
        secret.sftpUser
          ? {
              ipAddress: secret.sftpHost,
              port: secret.sftpPort,
              user: secret.sftpUser,
              password: secret.sftpPassword,
            }
          : null;
      return {
        database: database
          ? {
              ...database,
              connectionString: connectionString(
                'connection' in entry ? entry.connection : SITE_DATABASE_CONNECTION,
                database,
                secret.tls,
              ),
              tls: secret.tls
                ? { required: true, caCertificate: secret.tls.caPem, caFileName: CA_FILE_NAME }
                : { required: false, caCertificate: null, caFileName: null },
              phpmyadmin: secret.phpmyadmin ?? null,
            }
          : null,
        sftp,
      };
    },

    /**
     * Stores the new password (encrypted, pending) and adds the job that applies it, then waits up to
     * `passwordWaitMs` for the job: 'done' when it was applied (the old password no longer works),
     * 'pending' when it is still running. A failed change throws with the reason.
     */
    async changePassword(userId: string, id: string, body: ChangePasswordBody): Promise<'done' | 'pending'> {
      const row = await own(userId, id);
      if (!isDatabaseType(row.type) || !isDatabaseType(body.type))
        throw new ValidationError(PASSWORD_TYPES_ONLY);
      if (body.type !== row.type) {
        throw new ValidationError(`This is a ${typeName(row.type)} instance, not ${typeName(body.type)}`);
      }
      requireFeature(engineOf(row), 'password', PASSWORD_TYPES_ONLY);
      if ((await standing(userId)) === 'inactive')
        throw new SubscriptionInactiveError(PASSWORD_WHEN_INACTIVE);
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (row.deployed_at === null) {
        throw new ConflictError(
          row.status === 'deploying'
            ? 'The instance is still deploying; change the password once it runs'
            : 'The instance was never deployed, so it has no password to change',
        );
      }
      const pending = sealPendingPassword(cipher, row.id, body.password);
      await db.transaction().execute(async (trx) => {
        await updateCredentials(trx, row.id, { pending_password: pending, password_error: null });
        await enqueueInstanceJob(trx, 'password', row.id, budgets);
      });
      for (const until = Date.now() + passwordWaitMs; Date.now() < until; await sleep(100)) {
        const stored = await findCredentials(db, row.id);
        if (!stored) throw new NotFoundError('Instance not found');
        if (stored.pending_password === null) {
          if (stored.password_error) throw new OperationFailedError(stored.password_error);
          return 'done';
        }
      }
      return 'pending';
    },
  };
}
