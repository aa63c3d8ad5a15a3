import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from '@hono/zod-openapi';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { InstanceRow, StoredSsl } from '../../db/tables/instances.ts';
import type { Cipher } from '../../lib/crypto.ts';
import {
  backendCall,
  ConflictError,
  NotFoundError,
  OperationFailedError,
  PlanLimitError,
  SubscriptionInactiveError,
  ValidationError,
} from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import {
  type BackupInfo,
  type Capabilities as DriverCapabilities,
  INSTANCE_TYPES,
  type ProvisioningDriver,
  ProvisioningUnavailableError,
  type SslStatus,
} from '../../provisioning/driver.ts';
import { generatePassword } from '../../provisioning/tenant-names.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { type DriverStartup, NOTHING_STARTING } from './driver-startup.ts';
import { DEFAULT_PAGE_SIZE, isDatabaseType, TYPE_INFO } from './instance-catalog.ts';
import {
  DEFAULT_BUDGETS,
  enqueueInstanceJob,
  instanceHasJobs,
  type OperationBudgets,
} from './instance-jobs.ts';
import { openSecret, sealPendingPassword, sealSecret } from './instance-secrets.ts';
import {
  countActiveInstances,
  findCredentials,
  findInstance,
  findInstanceByDomain,
  findInstancesPage,
  insertCredentials,
  insertInstance,
  lockInstanceForUpdate,
  updateCredentials,
  updateInstance,
  updateSuspendedOfUser,
} from './instances.repository.ts';
import {
  type Backup,
  type BackupBody,
  type Capabilities,
  type ChangePasswordBody,
  type DatabaseAccess,
  type DeployBody,
  DomainSchema,
  type Instance,
  type InstanceList,
  type ListQuery,
  type SslResult,
  type UpdateBody,
  WordPressFieldsSchema,
} from './instances.schemas.ts';

export const CANNOT_CREATE = 'Cannot create instance. Please check your subscription status.';
export const DELETE_WHEN_INACTIVE = 'Your subscription is inactive. Deleting instances is disabled.';
export const PASSWORD_WHEN_INACTIVE = 'Subscription inactive — changing passwords is disabled.';
export const PASSWORD_TYPES_ONLY = 'Only MongoDB or MySQL password changes are supported';
export const PREPARING = 'Preparing credentials... This may take a moment.';
export const DOMAINS_WHEN_INACTIVE = 'Adding domains is disabled.';
export const REMOVE_DOMAIN_WHEN_INACTIVE = 'Your subscription is inactive. Removing domains is disabled.';
export const SSL_WHEN_INACTIVE = 'Your subscription is inactive. Requesting SSL is disabled.';
export const BACKUP_WHEN_INACTIVE = 'Your subscription is inactive. Creating backups is disabled.';
export const RESTORE_WHEN_INACTIVE = 'Restoring backups is disabled.';
export const DELETE_BACKUP_WHEN_INACTIVE = 'Deleting backups is disabled.';
export const SSL_CUSTOM_ONLY = 'SSL is only available for custom domains';
export const DOMAINS_SITES_ONLY = 'Custom domains are only available for WordPress instances';
export const BACKUPS_SITES_ONLY = 'Backups are only available for WordPress instances';
export const DEFAULT_PHP_VERSION = '8.2';
/** What a customer reads when the driver fails a synchronous call (spec customer-area §8). */
export const DRIVER_FAILED = {
  addDomain: 'Failed to add custom domain',
  removeDomain: 'Failed to remove custom domain',
  checkSsl: 'Failed to check SSL status',
  requestSsl: 'Failed to request SSL',
  listBackups: 'Failed to load backups',
  createBackup: 'Failed to create backup',
  restoreBackup: 'Failed to restore backup',
  deleteBackup: 'Failed to delete backup',
} as const;
const BACKUP_ID = /^[a-z0-9-]{1,64}$/;

export interface InstancesDeps {
  db: Db;
  driver: ProvisioningDriver;
  cipher: Cipher;
  notifications: Pick<NotificationsService, 'publishInstanceEvent'>;
  subscriptions: Pick<SubscriptionsService, 'get' | 'lockCanCreate'>;
  /** How long each operation's job may take (tests make them tiny). */
  budgets?: OperationBudgets;
  /** Where the driver's start stands: absent, nothing is starting. */
  startup?: DriverStartup;
  /** How long a password change waits for its job before answering 202. */
  passwordWaitMs?: number;
}

export type InstancesService = ReturnType<typeof createInstancesService>;

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
    url: row.url,
    adminUrl: row.admin_url,
    region: row.region,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deploymentConfig: { region: row.region, memory: row.memory, cpu: row.cpu },
    suspended: row.suspended,
    customDomain: row.custom_domain
      ? {
          domain: row.custom_domain,
          addedAt: row.domain_added_at?.toISOString() ?? null,
          isActive: row.ssl?.status === 'Active',
          ssl: row.ssl
            ? { status: row.ssl.status, message: row.ssl.message, lastChecked: row.ssl.lastChecked }
            : { status: 'Pending', message: 'Not checked yet', lastChecked: null },
        }
      : null,
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
  const startup = deps.startup ?? NOTHING_STARTING;
  const passwordWaitMs = deps.passwordWaitMs ?? 10_000;

  const publish = (trx: DbOrTx, row: InstanceRow) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status: row.status, statusMessage: row.status_message },
      trx,
    );

  /**
   * A synchronous driver call: the driver's own errors (unavailable, invalid input) answer as they are;
   * anything else answers 502 with `message`, the raw error logged under the request id.
   */
  const viaDriver = <T>(message: string, work: () => Promise<T>): Promise<T> =>
    backendCall(work, (cause) => new OperationFailedError(message, { cause }));

  /** The user's instance or 404 (also for another user's id and for ids that are no uuid). */
  async function own(userId: string, id: string): Promise<InstanceRow> {
    const row = isUuid(id) ? await findInstance(db, userId, id) : undefined;
    if (!row) throw new NotFoundError('Instance not found');
    return row;
  }

  async function standing(userId: string) {
    return (await subscriptions.get(userId)).standing;
  }

  const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'Invalid request';

  /**
   * The WordPress fields of a deploy (§5), the PHP version checked against those the host has. While the
   * driver is still starting and the host has none yet (packages being installed), the version asked for
   * (else the default) is taken; the deploy job's driver call checks it once the start has ended.
   */
  async function wordpressFields(body: DeployBody, starting: boolean) {
    const parsed = WordPressFieldsSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError(firstIssue(parsed.error));
    const fields = parsed.data;
    const versions = [...(await driver.phpVersions())];
    if (starting && versions.length === 0) versions.push(fields.phpversion ?? DEFAULT_PHP_VERSION);
    const phpVersion =
      fields.phpversion ?? (versions.includes(DEFAULT_PHP_VERSION) ? DEFAULT_PHP_VERSION : versions.at(-1));
    if (!phpVersion || !versions.includes(phpVersion)) {
      throw new ValidationError(
        `PHP ${phpVersion ?? DEFAULT_PHP_VERSION} is not installed on this host (available: ${versions.join(', ') || 'none'})`,
      );
    }
    let domain: string | undefined;
    if (body.domainType === 'Custom Domain') {
      if (!body.customDomain) throw new ValidationError('Custom domain is required');
      const checked = DomainSchema.safeParse(body.customDomain);
      if (!checked.success) throw new ValidationError(firstIssue(checked.error));
      domain = checked.data;
      await domainFree(domain);
    }
    return {
      settings: { title: fields.title, adminUser: fields.username, adminEmail: fields.email, phpVersion },
      adminPassword: fields.password,
      domain,
    };
  }

  async function domainFree(domain: string, instanceId?: string) {
    const taken = await findInstanceByDomain(db, domain);
    if (taken && taken.id !== instanceId) {
      throw new ConflictError(`The domain ${domain} is already attached to another instance`);
    }
  }

  /** The user's WordPress instance, deployed (the site exists), for domain, SSL and backup calls. */
  async function ownSite(userId: string, id: string, notSite: string): Promise<InstanceRow> {
    const row = await own(userId, id);
    if (row.type !== 'wordpress') throw new ValidationError(notSite);
    if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
    if (row.deployed_at === null) {
      throw new ConflictError(
        row.status === 'deploying'
          ? 'The instance is still deploying; try again once it runs'
          : 'The instance was never deployed',
      );
    }
    return row;
  }

  /**
   * Domain changes run synchronously; a deploy job of the same instance (a reconcile, a resume) brings
   * the domain in line with the row, so a change is refused while such a job waits or runs.
   */
  async function refuseWhileBusy(row: InstanceRow) {
    if (await instanceHasJobs(db, row.id)) {
      throw new ConflictError('The instance is busy with another operation; try again in a moment');
    }
  }

  async function refuseWhenInactive(userId: string, message: string) {
    if ((await standing(userId)) === 'inactive') throw new SubscriptionInactiveError(message);
  }

  const storedSsl = (ssl: SslStatus): StoredSsl => ({
    status: ssl.status,
    message: ssl.message,
    lastChecked: ssl.lastChecked,
    expiresAt: ssl.expiresAt ?? null,
  });

  function sslResult(ssl: StoredSsl | null): SslResult {
    return ssl ? { ssl, status: ssl.status } : { ssl: null, status: 'none' };
  }

  function backupId(id: string): string {
    if (!BACKUP_ID.test(id)) throw new NotFoundError('Backup not found');
    return id;
  }

  const toBackup = (b: BackupInfo): Backup => ({
    id: b.id,
    name: b.name,
    note: b.note,
    createdAt: b.createdAt,
    size: b.size,
  });

  return {
    /** Instances that count against the plan (all but those being deleted). */
    count: (userId: string, trx: DbOrTx = db) => countActiveInstances(trx, userId),

    /** What the driver can provide; a type its start may still bring counts as available (deploy waits). */
    async capabilities(): Promise<Capabilities> {
      const found: DriverCapabilities = await driver.capabilities();
      return {
        types: INSTANCE_TYPES.map((type) => {
          const capability = found[type];
          const available = capability.available || startup.mayProvide(type);
          return {
            type,
            name: TYPE_INFO[type].name,
            category: TYPE_INFO[type].category,
            available,
            reason: available ? null : capability.reason,
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
     * the plan allows no more instances (decided under a lock on the user's subscription). While the
     * driver is still starting, a type the start may bring up is accepted: its job waits for the start.
     */
    async deploy(userId: string, body: DeployBody): Promise<Instance> {
      const capability = (await driver.capabilities())[body.type];
      const starting = !capability.available && startup.mayProvide(body.type);
      if (!capability.available && !starting) {
        throw new ProvisioningUnavailableError(body.type, capability.reason);
      }
      const site = body.type === 'wordpress' ? await wordpressFields(body, starting) : undefined;
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
          site: site?.settings ?? null,
          custom_domain: site?.domain ?? null,
          domain_added_at: site?.domain ? new Date() : null,
        });
        const secret = site
          ? {
              password: generatePassword(),
              sftpPassword: generatePassword(),
              adminPassword: site.adminPassword,
            }
          : { password: generatePassword() };
        await insertCredentials(trx, row.id, sealSecret(cipher, row.id, secret));
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
      if (row.type === 'n8n') throw new ConflictError('n8n instances have no credentials yet');
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
      const sftp =
        row.type === 'wordpress' &&
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
        database: {
          ...database,
          connectionString: connectionString(TYPE_INFO[row.type].scheme ?? 'mysql', database),
        },
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
     * Attaches a custom domain to a WordPress site, synchronously: the driver's change is quick (a
     * Caddy reload and WordPress' own address), and it runs under the driver's per-site lock, so it
     * cannot interleave with a job of the same site. The row follows the driver's answer.
     */
    async addDomain(userId: string, id: string, domain: string): Promise<Instance> {
      const row = await ownSite(userId, id, DOMAINS_SITES_ONLY);
      await refuseWhenInactive(userId, DOMAINS_WHEN_INACTIVE);
      await domainFree(domain, row.id);
      await refuseWhileBusy(row);
      const urls = await viaDriver(DRIVER_FAILED.addDomain, () => driver.setSiteDomain(row.id, domain));
      return db.transaction().execute(async (trx) => {
        const updated = await updateInstance(
          trx,
          row.id,
          {
            url: urls.url,
            admin_url: urls.adminUrl,
            custom_domain: domain,
            domain_added_at: row.custom_domain === domain ? row.domain_added_at : new Date(),
            ssl: row.custom_domain === domain ? row.ssl : null,
          },
          { statusNot: 'deleting' },
        );
        if (!updated) throw new ConflictError('The instance is being deleted');
        await publish(trx, updated);
        return toInstance(updated);
      });
    },

    /** Detaches the custom domain (the site goes back to its temporary URL); synchronous like addDomain. */
    async removeDomain(userId: string, id: string): Promise<Instance> {
      const row = await ownSite(userId, id, DOMAINS_SITES_ONLY);
      await refuseWhenInactive(userId, REMOVE_DOMAIN_WHEN_INACTIVE);
      if (!row.custom_domain) throw new ValidationError('The instance has no custom domain');
      await refuseWhileBusy(row);
      const urls = await viaDriver(DRIVER_FAILED.removeDomain, () => driver.setSiteDomain(row.id, null));
      return db.transaction().execute(async (trx) => {
        const updated = await updateInstance(
          trx,
          row.id,
          { url: urls.url, admin_url: urls.adminUrl, custom_domain: null, domain_added_at: null, ssl: null },
          { statusNot: 'deleting' },
        );
        if (!updated) throw new ConflictError('The instance is being deleted');
        await publish(trx, updated);
        return toInstance(updated);
      });
    },

    /** Probes the custom domain's certificate now and stores the result (shown in customDomain.ssl). */
    async sslStatus(userId: string, id: string): Promise<SslResult> {
      const row = await ownSite(userId, id, SSL_CUSTOM_ONLY);
      if (!row.custom_domain) return sslResult(null);
      const probed = await viaDriver(DRIVER_FAILED.checkSsl, () => driver.sslStatus(row.id));
      const ssl = probed ? storedSsl(probed) : null;
      await updateInstance(db, row.id, { ssl }, { statusNot: 'deleting' });
      return sslResult(ssl);
    },

    /** Has the certificate issued again; answers the status right after. */
    async requestSsl(userId: string, id: string): Promise<SslResult> {
      const row = await ownSite(userId, id, SSL_CUSTOM_ONLY);
      await refuseWhenInactive(userId, SSL_WHEN_INACTIVE);
      if (!row.custom_domain) throw new ValidationError(SSL_CUSTOM_ONLY);
      const ssl = storedSsl(await viaDriver(DRIVER_FAILED.requestSsl, () => driver.requestSsl(row.id)));
      await updateInstance(db, row.id, { ssl }, { statusNot: 'deleting' });
      return sslResult(ssl);
    },

    async listBackups(userId: string, id: string): Promise<Backup[]> {
      const row = await ownSite(userId, id, BACKUPS_SITES_ONLY);
      return (await viaDriver(DRIVER_FAILED.listBackups, () => driver.listBackups(row.id))).map(toBackup);
    },

    /**
     * Creates a backup (database dump + wp-content) synchronously: a fresh site takes a second or two,
     * and the answer then names a backup that exists. Answers its id.
     */
    async createBackup(userId: string, id: string, body: BackupBody): Promise<string> {
      const row = await ownSite(userId, id, BACKUPS_SITES_ONLY);
      await refuseWhenInactive(userId, BACKUP_WHEN_INACTIVE);
      const backup = await viaDriver(DRIVER_FAILED.createBackup, () =>
        driver.createBackup(row.id, {
          backupId: `b-${randomBytes(6).toString('hex')}`,
          name: body.name,
          note: body.note ?? '',
        }),
      );
      return backup.id;
    },

    /** Exact restore (database recreated, wp-content replaced, verified), synchronously. */
    async restoreBackup(userId: string, id: string, backup: string): Promise<void> {
      const row = await ownSite(userId, id, BACKUPS_SITES_ONLY);
      await refuseWhenInactive(userId, RESTORE_WHEN_INACTIVE);
      const wanted = backupId(backup);
      await viaDriver(DRIVER_FAILED.restoreBackup, () => driver.restoreBackup(row.id, wanted));
    },

    async deleteBackup(userId: string, id: string, backup: string): Promise<void> {
      const row = await ownSite(userId, id, BACKUPS_SITES_ONLY);
      await refuseWhenInactive(userId, DELETE_BACKUP_WHEN_INACTIVE);
      const wanted = backupId(backup);
      await viaDriver(DRIVER_FAILED.deleteBackup, async () => {
        if (!(await driver.listBackups(row.id)).some((b) => b.id === wanted)) {
          throw new NotFoundError('Backup not found');
        }
        await driver.deleteBackup(row.id, wanted);
      });
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
