import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { InstanceRow } from '../../db/tables/instances.ts';
import type { Cipher } from '../../lib/crypto.ts';
import {
  ConflictError,
  NotFoundError,
  OperationFailedError,
  PlanLimitError,
  SubscriptionInactiveError,
  ValidationError,
} from '../../lib/errors.ts';
import {
  type Capabilities as DriverCapabilities,
  INSTANCE_TYPES,
  type ProvisioningDriver,
  ProvisioningUnavailableError,
} from '../../provisioning/driver.ts';
import { generatePassword } from '../../provisioning/tenant-names.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { DEFAULT_PAGE_SIZE, isDatabaseType, TYPE_INFO } from './instance-catalog.ts';
import { DEFAULT_BUDGETS, enqueueInstanceJob, type OperationBudgets } from './instance-jobs.ts';
import { openSecret, sealPendingPassword, sealSecret } from './instance-secrets.ts';
import {
  countActiveInstances,
  findCredentials,
  findInstance,
  findInstancesPage,
  insertCredentials,
  insertInstance,
  lockInstanceForUpdate,
  updateCredentials,
  updateInstance,
  updateSuspendedOfUser,
} from './instances.repository.ts';
import type {
  Capabilities,
  ChangePasswordBody,
  DatabaseAccess,
  DeployBody,
  Instance,
  InstanceList,
  ListQuery,
  UpdateBody,
} from './instances.schemas.ts';

export const CANNOT_CREATE = 'Cannot create instance. Please check your subscription status.';
export const DELETE_WHEN_INACTIVE = 'Your subscription is inactive. Deleting instances is disabled.';
export const PASSWORD_WHEN_INACTIVE = 'Subscription inactive — changing passwords is disabled.';
export const PASSWORD_TYPES_ONLY = 'Only MongoDB or MySQL password changes are supported';
export const PREPARING = 'Preparing credentials... This may take a moment.';

export interface InstancesDeps {
  db: Db;
  driver: ProvisioningDriver;
  cipher: Cipher;
  notifications: Pick<NotificationsService, 'publishInstanceEvent'>;
  subscriptions: Pick<SubscriptionsService, 'get' | 'lockCanCreate'>;
  /** How long each operation's job may take (tests make them tiny). */
  budgets?: OperationBudgets;
  /** How long a password change waits for its job before answering 202. */
  passwordWaitMs?: number;
}

export type InstancesService = ReturnType<typeof createInstancesService>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function toInstance(row: InstanceRow): Instance {
  const info = TYPE_INFO[row.type];
  return {
    _id: row.id,
    id: row.id,
    name: row.name,
    description: row.description,
    type: info.name,
    product: row.type,
    category: info.category,
    status: row.status,
    statusMessage: row.status_message,
    url: null,
    adminUrl: null,
    region: row.region,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deploymentConfig: { region: row.region, memory: row.memory, cpu: row.cpu },
    suspended: row.suspended,
    customDomain: null,
    metadata: info.flag ? { database: true, [info.flag]: true } : { database: false },
  };
}

function connectionString(
  scheme: string,
  c: { user: string; password: string; host: string; port: number; name: string },
) {
  const e = encodeURIComponent;
  return `${scheme}://${e(c.user)}:${e(c.password)}@${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}/${e(c.name)}`;
}

export function createInstancesService(deps: InstancesDeps) {
  const { db, driver, cipher, notifications, subscriptions } = deps;
  const budgets = deps.budgets ?? DEFAULT_BUDGETS;
  const passwordWaitMs = deps.passwordWaitMs ?? 10_000;

  const publish = (trx: DbOrTx, row: InstanceRow) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status: row.status, statusMessage: row.status_message },
      trx,
    );

  /** The user's instance or 404 (also for another user's id and for ids that are no uuid). */
  async function own(userId: string, id: string): Promise<InstanceRow> {
    const row = UUID.test(id) ? await findInstance(db, userId, id) : undefined;
    if (!row) throw new NotFoundError('Instance not found');
    return row;
  }

  async function standing(userId: string) {
    return (await subscriptions.get(userId)).standing;
  }

  return {
    /** Instances that count against the plan (all but those being deleted). */
    count: (userId: string, trx: DbOrTx = db) => countActiveInstances(trx, userId),

    async capabilities(): Promise<Capabilities> {
      const found: DriverCapabilities = await driver.capabilities();
      return {
        types: INSTANCE_TYPES.map((type) => {
          const capability = found[type];
          return {
            type,
            name: TYPE_INFO[type].name,
            category: TYPE_INFO[type].category,
            available: capability.available,
            reason: capability.available ? null : capability.reason,
          };
        }),
      };
    },

    async list(userId: string, query: ListQuery): Promise<InstanceList> {
      const page = query.page ?? 1;
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const { rows, total } = await findInstancesPage(db, userId, {
        search: query.search?.trim() ?? '',
        limit,
        offset: (page - 1) * limit,
      });
      return {
        instances: rows.map(toInstance),
        total,
        pages: Math.max(1, Math.ceil(total / limit)),
        page,
        limit,
      };
    },

    async get(userId: string, id: string): Promise<Instance> {
      return toInstance(await own(userId, id));
    },

    /**
     * Records the instance (status deploying) with a generated password, encrypted, and adds its deploy
     * job in the same transaction; the job creates the tenant with that very password, so a retry gives
     * the same credentials. Refused with 409 when the type cannot be provisioned here, and with 403 when
     * the plan allows no more instances (decided under a lock on the user's subscription).
     */
    async deploy(userId: string, body: DeployBody): Promise<Instance> {
      const capability = (await driver.capabilities())[body.type];
      if (!capability.available) throw new ProvisioningUnavailableError(body.type, capability.reason);
      return db.transaction().execute(async (trx) => {
        if (!(await subscriptions.lockCanCreate(userId, trx)).canCreate)
          throw new PlanLimitError(CANNOT_CREATE);
        const row = await insertInstance(trx, {
          user_id: userId,
          name: body.name,
          description: body.description ?? '',
          type: body.type,
          category: TYPE_INFO[body.type].category,
          region: body.region,
          memory: body.memory,
          cpu: body.cpu,
          status: 'deploying',
        });
        await insertCredentials(trx, row.id, sealSecret(cipher, row.id, { password: generatePassword() }));
        await enqueueInstanceJob(trx, 'deploy', row.id, budgets);
        await publish(trx, row);
        return toInstance(row);
      });
    },

    async update(userId: string, id: string, body: UpdateBody): Promise<Instance> {
      const current = await own(userId, id);
      if (current.status === 'deleting') throw new ConflictError('The instance is being deleted');
      return db.transaction().execute(async (trx) => {
        const row = await updateInstance(
          trx,
          current.id,
          { name: body.name, description: body.description ?? current.description },
          { statusNot: 'deleting' },
        );
        if (!row) throw new ConflictError('The instance is being deleted');
        await publish(trx, row);
        return toInstance(row);
      });
    },

    /** Marks the instance deleting and adds its delete job; asking again while it is deleting is fine. */
    async remove(userId: string, id: string): Promise<Instance> {
      await own(userId, id);
      if ((await standing(userId)) === 'inactive') throw new SubscriptionInactiveError(DELETE_WHEN_INACTIVE);
      return db.transaction().execute(async (trx) => {
        const locked = await lockInstanceForUpdate(trx, userId, id);
        if (!locked) throw new NotFoundError('Instance not found');
        const row =
          locked.status === 'deleting'
            ? locked
            : await updateInstance(trx, id, { status: 'deleting', status_message: null });
        if (!row) throw new NotFoundError('Instance not found');
        await enqueueInstanceJob(trx, 'delete', id, budgets);
        await publish(trx, row);
        return toInstance(row);
      });
    },

    /** 'preparing' while the deploy runs; the connection details once it has succeeded. */
    async access(userId: string, id: string): Promise<{ preparing: true } | DatabaseAccess> {
      const row = await own(userId, id);
      if (!isDatabaseType(row.type)) throw new ConflictError('Only database instances have credentials yet');
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (row.status === 'deploying' && row.deployed_at === null) return { preparing: true };
      const stored = await findCredentials(db, row.id);
      const secret = stored && openSecret(cipher, row.id, stored.secret);
      if (!secret?.host || !secret.port || !secret.database || !secret.user) {
        throw new ConflictError(
          row.status_message
            ? `No credentials: ${row.status_message}`
            : 'The instance has no credentials yet',
        );
      }
      const database = {
        host: secret.host,
        port: secret.port,
        name: secret.database,
        user: secret.user,
        password: secret.password,
      };
      return {
        database: {
          ...database,
          connectionString: connectionString(TYPE_INFO[row.type].scheme ?? row.type, database),
        },
        sftp: null,
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
        throw new ValidationError(
          `This is a ${TYPE_INFO[row.type].name} instance, not ${TYPE_INFO[body.type].name}`,
        );
      }
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

    /**
     * Sets `suspended` on every instance of the user and adds the jobs that lock (or unlock) their
     * tenants, in the caller's transaction. Answers how many instances changed.
     */
    async setSuspended(userId: string, suspended: boolean, trx: DbOrTx = db): Promise<number> {
      const write = async (tx: DbOrTx) => {
        const rows = await updateSuspendedOfUser(tx, userId, suspended);
        for (const row of rows) {
          await enqueueInstanceJob(tx, 'suspension', row.id, budgets);
          await publish(tx, row);
        }
        return rows.length;
      };
      return trx.isTransaction ? write(trx) : db.transaction().execute(write);
    },
  };
}
