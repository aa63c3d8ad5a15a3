import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from '@hono/zod-openapi';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { InstanceRow, InstanceRowUpdate, StoredSsl } from '../../db/tables/instances.ts';
import type { Cipher } from '../../lib/crypto.ts';
import type { TxtLookup } from '../../lib/dns-txt.ts';
import type { LogLine } from '../../lib/error-reference.ts';
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
  type SiteStorage,
  type SiteUrls,
  type SslStatus,
} from '../../provisioning/driver.ts';
import { generatePassword } from '../../provisioning/tenant-names.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import {
  judgeTxt,
  newDomainToken,
  PENDING_ACTIVATION,
  PENDING_WINDOW_HOURS,
  verificationRecord,
} from './domain-verification.ts';
import { type DriverStartup, NOTHING_STARTING } from './driver-startup.ts';
import { DEFAULT_PAGE_SIZE, isDatabaseType, isSiteType, TYPE_INFO } from './instance-catalog.ts';
import {
  DEFAULT_BUDGETS,
  enqueueInstanceJob,
  instanceHasJobs,
  type OperationBudgets,
} from './instance-jobs.ts';
import { generateN8nKey, openSecret, sealPendingPassword, sealSecret } from './instance-secrets.ts';
import {
  countActiveInstances,
  findCredentials,
  findDomainHolders,
  findDomainsDue,
  findDomainToken,
  findInstance,
  findInstancesPage,
  insertCredentials,
  insertInstance,
  lockInstanceForUpdate,
  updateCredentials,
  updateDomainOf,
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
  N8nFieldsSchema,
  type OperatorCapabilities,
  type SslResult,
  type UpdateBody,
  WordPressFieldsSchema,
} from './instances.schemas.ts';

const CANNOT_CREATE = 'Cannot create instance. Please check your subscription status.';
const DELETE_WHEN_INACTIVE = 'Your subscription is inactive. Deleting instances is disabled.';
const PASSWORD_WHEN_INACTIVE = 'Subscription inactive — changing passwords is disabled.';
const PASSWORD_TYPES_ONLY = 'Only MongoDB or MySQL password changes are supported';
export const PREPARING = 'Preparing credentials... This may take a moment.';
const DOMAINS_WHEN_INACTIVE = 'Adding domains is disabled.';
const REMOVE_DOMAIN_WHEN_INACTIVE = 'Your subscription is inactive. Removing domains is disabled.';
const SSL_WHEN_INACTIVE = 'Your subscription is inactive. Requesting SSL is disabled.';
const BACKUP_WHEN_INACTIVE = 'Your subscription is inactive. Creating backups is disabled.';
const RESTORE_WHEN_INACTIVE = 'Restoring backups is disabled.';
const DELETE_BACKUP_WHEN_INACTIVE = 'Deleting backups is disabled.';
const SSL_CUSTOM_ONLY = 'SSL is only available for custom domains';
const DOMAINS_SITES_ONLY = 'Custom domains are only available for WordPress instances';
const BACKUPS_SITES_ONLY = 'Backups are only available for WordPress instances';
const STORAGE_SITES_ONLY = 'Storage use is shown for WordPress instances';
const NO_CUSTOM_DOMAIN = 'The instance has no custom domain';
const SSL_NOT_VERIFIED =
  'The custom domain is not verified yet: add its TXT record and verify it, then the certificate is issued';
const domainTaken = (domain: string) => `The domain ${domain} is already in use by another account`;
const DEFAULT_PHP_VERSION = '8.2';
/** What a customer reads when the driver fails a synchronous call. */
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
  /** TXT lookups that prove ownership of custom domains. */
  txtLookup: TxtLookup;
  /** The server log: why a deploy was refused, in the operator's words. */
  log?: LogLine;
}

export type InstancesService = ReturnType<typeof createInstancesService>;

function toInstance(row: InstanceRow): Instance {
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
    ...(row.type === 'n8n' && row.site && { ownerEmail: row.site.adminEmail }),
    region: row.region,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deploymentConfig: { region: row.region, memory: row.memory, cpu: row.cpu },
    suspended: row.suspended,
    customDomain: row.custom_domain
      ? {
          domain: row.custom_domain,
          addedAt: row.domain_added_at?.toISOString() ?? null,
          isActive: row.domain_status === 'attached' && row.ssl?.status === 'Active',
          ssl:
            row.domain_status !== 'attached'
              ? { status: 'Pending', isPrimary: false, message: PENDING_ACTIVATION, lastChecked: null }
              : row.ssl
                ? {
                    status: row.ssl.status,
                    // Attached, the domain is the site's address (its URL and WordPress' own).
                    isPrimary: true,
                    message: row.ssl.message,
                    lastChecked: row.ssl.lastChecked,
                  }
                : { status: 'Pending', isPrimary: true, message: 'Not checked yet', lastChecked: null },
          verification: {
            status: row.domain_status ?? 'attached',
            record: verificationRecord(row.custom_domain, row.domain_token ?? ''),
            lastChecked: row.domain_checked_at?.toISOString() ?? null,
            message: row.domain_message,
          },
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
  const { db, driver, cipher, notifications, subscriptions, txtLookup } = deps;
  const budgets = deps.budgets ?? DEFAULT_BUDGETS;
  const startup = deps.startup ?? NOTHING_STARTING;
  const passwordWaitMs = deps.passwordWaitMs ?? 10_000;
  const log = deps.log ?? ((line: string) => console.error(`[berth] ${line}`));

  const publish = (trx: DbOrTx, row: InstanceRow) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status: row.status, statusMessage: row.status_message },
      trx,
    );

  /** Changes the row and announces it, in one transaction; a ConflictError once it is being deleted. */
  const changeUnlessDeleting = (id: string, patch: InstanceRowUpdate) =>
    db.transaction().execute(async (trx) => {
      const row = await updateInstance(trx, id, patch, { statusNot: 'deleting' });
      if (!row) throw new ConflictError('The instance is being deleted');
      await publish(trx, row);
      return row;
    });

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
   * The WordPress fields of a deploy, the PHP version checked against those the host has. While the
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
    }
    return {
      settings: { title: fields.title, adminUser: fields.username, adminEmail: fields.email, phpVersion },
      adminPassword: fields.password,
      domain,
    };
  }

  /**
   * The n8n fields of a deploy: the owner account n8n is set up with (e-mail, password by n8n's own
   * rules, the username as first name), and optionally a custom domain. Kept in the `site` settings:
   * title = instance name, adminUser = first name, adminEmail = the owner's e-mail, no PHP version.
   */
  function n8nFields(body: DeployBody) {
    const parsed = N8nFieldsSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError(firstIssue(parsed.error));
    const fields = parsed.data;
    let domain: string | undefined;
    if (body.domainType === 'Custom Domain') {
      if (!body.customDomain) throw new ValidationError('Custom domain is required');
      const checked = DomainSchema.safeParse(body.customDomain);
      if (!checked.success) throw new ValidationError(firstIssue(checked.error));
      domain = checked.data;
    }
    const firstName = fields.username ?? fields.email.split('@')[0] ?? 'Owner';
    return {
      settings: { title: body.name, adminUser: firstName, adminEmail: fields.email, phpVersion: '' },
      adminPassword: fields.password,
      domain,
    };
  }

  /** Refuses a domain verified or attached by another account (the same account may move it). */
  async function domainFree(userId: string, domain: string) {
    const holders = await findDomainHolders(db, domain);
    if (holders.some((holder) => holder.user_id !== userId)) throw new ConflictError(domainTaken(domain));
  }

  /** The fields of a newly added, pending domain; the account's token for it when it has one. */
  async function pendingDomain(userId: string, domain: string) {
    return {
      custom_domain: domain,
      domain_added_at: new Date(),
      domain_status: 'pending' as const,
      domain_token: (await findDomainToken(db, userId, domain)) ?? newDomainToken(),
      domain_checked_at: null,
      domain_message: PENDING_ACTIVATION,
      ssl: null,
    };
  }

  const noDomain = {
    custom_domain: null,
    domain_added_at: null,
    domain_status: null,
    domain_token: null,
    domain_checked_at: null,
    domain_message: null,
    ssl: null,
  };

  /** Whether the driver may change the site's domain now (deployed, running, no job of it under way). */
  async function canAttach(row: InstanceRow): Promise<boolean> {
    return (
      row.deployed_at !== null &&
      row.status === 'running' &&
      !row.suspended &&
      !(await instanceHasJobs(db, row.id))
    );
  }

  /**
   * The same account's other instance holding the domain gives it up (the domain moves): detached by
   * the driver when it was attached there, then cleared from that row.
   */
  async function releaseFromOwnInstances(row: InstanceRow, domain: string) {
    for (const holder of await findDomainHolders(db, domain)) {
      if (holder.id === row.id) continue;
      if (holder.user_id !== row.user_id) throw new ConflictError(domainTaken(domain));
      const urls =
        holder.domain_status === 'attached' && holder.deployed_at !== null
          ? await driver.setSiteDomain(holder.id, null)
          : undefined;
      const cleared = await updateDomainOf(db, holder.id, domain, {
        ...noDomain,
        ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
      });
      if (cleared && cleared !== 'taken') await publish(db, cleared);
    }
  }

  /**
   * Looks up the TXT record of the row's pending (or failed) domain and stores what it found; when it
   * holds the token the domain becomes verified (refused with 409 when another account holds it) and is
   * attached through the driver when the site can take it now (else later, by the deploy job or the
   * background check). A verified domain is only attached. Answers the row as stored.
   */
  async function checkDomain(row: InstanceRow, options: { throwConflict: boolean }): Promise<InstanceRow> {
    const domain = row.custom_domain;
    if (!domain || !row.domain_token || !row.domain_status) return row;
    let current = row;
    if (row.domain_status === 'pending' || row.domain_status === 'failed') {
      const outcome = judgeTxt(
        domain,
        row.domain_token,
        await txtLookup(verificationRecord(domain, row.domain_token).name),
      );
      const checked = { domain_checked_at: new Date() };
      if (!outcome.matched) {
        const stale =
          row.domain_status === 'pending' &&
          row.domain_added_at !== null &&
          Date.now() - row.domain_added_at.getTime() > PENDING_WINDOW_HOURS * 3_600_000;
        const updated = await updateDomainOf(db, row.id, domain, {
          ...checked,
          domain_status: stale ? 'failed' : row.domain_status,
          domain_message: stale
            ? `${outcome.message} within ${PENDING_WINDOW_HOURS} hours. Add the record and press Verify now.`
            : outcome.message,
        });
        if (updated && updated !== 'taken') await publish(db, updated);
        return updated && updated !== 'taken' ? updated : row;
      }
      const refuse = async () => {
        const failed = await updateDomainOf(db, row.id, domain, {
          ...checked,
          domain_status: 'failed',
          domain_message: domainTaken(domain),
        });
        if (failed && failed !== 'taken') await publish(db, failed);
        if (options.throwConflict) throw new ConflictError(domainTaken(domain));
        return failed && failed !== 'taken' ? failed : row;
      };
      try {
        await releaseFromOwnInstances(row, domain);
      } catch (error) {
        if (error instanceof ConflictError) return refuse();
        throw error;
      }
      const verified = await updateDomainOf(db, row.id, domain, {
        ...checked,
        domain_status: 'verified',
        domain_message: 'Verified; the domain is attached once the site runs',
      });
      if (verified === 'taken') return refuse();
      if (!verified) return row;
      current = verified;
    }
    if (current.domain_status !== 'verified') return current;
    if (!(await canAttach(current))) {
      // Looked at again in a minute (not at every background run, ahead of the pending ones).
      if (current === row) await updateDomainOf(db, row.id, domain, { domain_checked_at: new Date() });
      return current;
    }
    let patch: Parameters<typeof updateInstance>[2];
    try {
      const urls = await driver.setSiteDomain(current.id, domain);
      patch = {
        url: urls.url,
        admin_url: urls.adminUrl,
        domain_status: 'attached',
        domain_message: 'Verified and attached',
        domain_checked_at: new Date(),
        ssl: null,
      };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // The driver refusing the domain itself (e.g. one of the platform's own addresses) is final.
      patch =
        error instanceof ValidationError
          ? { domain_status: 'failed', domain_message: reason, domain_checked_at: new Date() }
          : {
              domain_message: `Verified; attaching failed (${reason}), it is tried again`,
              domain_checked_at: new Date(),
            };
    }
    const updated = await updateDomainOf(db, current.id, domain, patch);
    if (!updated || updated === 'taken') return current;
    await publish(db, updated);
    return updated;
  }

  /** The user's WordPress or n8n instance, deployed (the site exists), for domain, SSL and backup calls. */
  async function ownSite(userId: string, id: string, notSite: string): Promise<InstanceRow> {
    const row = await own(userId, id);
    if (!isSiteType(row.type)) throw new ValidationError(notSite);
    if (row.type === 'n8n' && notSite === STORAGE_SITES_ONLY) throw new ValidationError(notSite);
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

  /** Every type, available or with the customer's reason and the operator's detail. */
  async function capabilityList(): Promise<OperatorCapabilities['types']> {
    const found: DriverCapabilities = await driver.capabilities();
    return INSTANCE_TYPES.map((type) => {
      const capability = found[type];
      const available = capability.available || startup.mayProvide(type);
      return {
        type,
        name: TYPE_INFO[type].name,
        category: TYPE_INFO[type].category,
        available,
        reason: capability.available || available ? null : capability.reason,
        detail: capability.available || available ? null : (capability.detail ?? null),
      };
    });
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

    /**
     * What the driver can provide, with the customer's reason for the rest; a type its start may still
     * bring counts as available (deploy waits).
     */
    async capabilities(): Promise<Capabilities> {
      return { types: (await capabilityList()).map(({ detail: _operators, ...type }) => type) };
    },

    /** The same with the operator's detail of each unavailable type (what is missing, what to run). */
    async capabilitiesForOperator(): Promise<OperatorCapabilities> {
      return { types: await capabilityList() };
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
        log(`deploy of ${body.type} refused: ${capability.detail ?? capability.reason}`);
        throw new ProvisioningUnavailableError(body.type, capability);
      }
      const site =
        body.type === 'wordpress'
          ? await wordpressFields(body, starting)
          : body.type === 'n8n'
            ? n8nFields(body)
            : undefined;
      if (site?.domain) await domainFree(userId, site.domain);
      const domainFields = site?.domain ? await pendingDomain(userId, site.domain) : {};
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
          ...domainFields,
        });
        const secret =
          body.type === 'n8n' && site
            ? // n8n: the owner password and the instance's encryption key (generated once, kept encrypted).
              { password: generatePassword(), adminPassword: site.adminPassword, n8nKey: generateN8nKey() }
            : site
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
      return toInstance(
        await changeUnlessDeleting(current.id, {
          name: body.name,
          description: body.description ?? current.description,
        }),
      );
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
          // No phpMyAdmin runs here: the field the spec lists says so rather than point nowhere.
          phpmyadmin: null,
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
     * Records a custom domain for a WordPress site as pending, with the TXT record that proves the
     * account controls it; a domain verified or attached by another account is refused (409). A domain
     * it replaces is detached first. The TXT record is looked up once at once (an account moving a
     * domain between its instances already has it); otherwise the background check or "Verify now"
     * attaches the domain once the record is there.
     */
    async addDomain(userId: string, id: string, domain: string): Promise<Instance> {
      const row = await ownSite(userId, id, DOMAINS_SITES_ONLY);
      await refuseWhenInactive(userId, DOMAINS_WHEN_INACTIVE);
      await domainFree(userId, domain);
      if (row.custom_domain === domain) return toInstance(await checkDomain(row, { throwConflict: true }));
      await refuseWhileBusy(row);
      const urls =
        row.domain_status === 'attached'
          ? await viaDriver(DRIVER_FAILED.addDomain, () => driver.setSiteDomain(row.id, null))
          : undefined;
      const pending = await pendingDomain(userId, domain);
      const updated = await changeUnlessDeleting(row.id, {
        ...pending,
        ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
      });
      return toInstance(await checkDomain(updated, { throwConflict: true }));
    },

    /**
     * Checks the TXT record of the instance's custom domain now ("Verify now") and attaches the domain
     * when it proves ownership. 409 when another account holds the domain.
     */
    async verifyDomain(userId: string, id: string): Promise<Instance> {
      const row = await own(userId, id);
      if (!isSiteType(row.type)) throw new ValidationError(DOMAINS_SITES_ONLY);
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (!row.custom_domain) throw new ValidationError(NO_CUSTOM_DOMAIN);
      return toInstance(await checkDomain(row, { throwConflict: true }));
    },

    /**
     * The background check: looks at the pending domains that are due (a schedule that slows down with
     * their age; failed after PENDING_WINDOW_HOURS) and attaches verified ones, at most `limit` a run.
     * Answers how many it looked at.
     */
    async checkDueDomains(limit = 50): Promise<number> {
      const rows = await findDomainsDue(db, limit);
      for (const row of rows) await checkDomain(row, { throwConflict: false });
      return rows.length;
    },

    /** Detaches the custom domain (the site goes back to its temporary URL); a pending one is dropped. */
    async removeDomain(userId: string, id: string): Promise<Instance> {
      const row = await own(userId, id);
      if (!isSiteType(row.type)) throw new ValidationError(DOMAINS_SITES_ONLY);
      await refuseWhenInactive(userId, REMOVE_DOMAIN_WHEN_INACTIVE);
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (!row.custom_domain) throw new ValidationError(NO_CUSTOM_DOMAIN);
      let urls: SiteUrls | undefined;
      if (row.domain_status === 'attached' || row.domain_status === 'verified') {
        if (row.domain_status === 'attached') await ownSite(userId, id, DOMAINS_SITES_ONLY);
        await refuseWhileBusy(row);
        if (row.deployed_at !== null)
          urls = await viaDriver(DRIVER_FAILED.removeDomain, () => driver.setSiteDomain(row.id, null));
      }
      return toInstance(
        await changeUnlessDeleting(row.id, {
          ...noDomain,
          ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
        }),
      );
    },

    /** Probes the custom domain's certificate now and stores the result (shown in customDomain.ssl). */
    async sslStatus(userId: string, id: string): Promise<SslResult> {
      const row = await ownSite(userId, id, SSL_CUSTOM_ONLY);
      if (!row.custom_domain) return sslResult(null);
      if (row.domain_status !== 'attached') {
        return {
          ssl: {
            status: 'Pending',
            message: PENDING_ACTIVATION,
            lastChecked: new Date().toISOString(),
            expiresAt: null,
          },
          status: 'Pending',
        };
      }
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
      if (row.domain_status !== 'attached') throw new ConflictError(SSL_NOT_VERIFIED);
      const ssl = storedSsl(await viaDriver(DRIVER_FAILED.requestSsl, () => driver.requestSsl(row.id)));
      await updateInstance(db, row.id, { ssl }, { statusNot: 'deleting' });
      return sslResult(ssl);
    },

    /** How much of its storage a WordPress site uses (its disk: uploads, files, sessions, logs). */
    async storage(userId: string, id: string): Promise<SiteStorage> {
      const row = await ownSite(userId, id, STORAGE_SITES_ONLY);
      return driver.siteStorage(row.id);
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
