import { REGIONS } from '@berth/openapi/rules';
import type { z } from '@hono/zod-openapi';
import { BACKUPS_NOT_OFFSITE } from '../../backup-storage/object-store.ts';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { Cipher } from '../../lib/crypto.ts';
import type { TxtLookup } from '../../lib/dns-txt.ts';
import type { LogLine } from '../../lib/error-reference.ts';
import {
  ConflictError,
  NotFoundError,
  PlanLimitError,
  SubscriptionInactiveError,
  ValidationError,
} from '../../lib/errors.ts';
import { type ProvisioningDriver, ProvisioningUnavailableError } from '../../provisioning/driver.ts';
import { INSTANCE_TYPES, type InstanceType } from '../../provisioning/instance-types.ts';
import { generatePassword } from '../../provisioning/tenant-names.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { type DriverStartup, NOTHING_STARTING } from './driver-startup.ts';
import { createInstanceBackupsService, type InstanceBackupsDeps } from './instance-backups.service.ts';
import { DEFAULT_PAGE_SIZE, TYPE_INFO } from './instance-catalog.ts';
import { createInstanceCredentialsService } from './instance-credentials.service.ts';
import { DomainSchema } from './instance-domains.schemas.ts';
import { createInstanceDomainsService, domainFree, pendingDomain } from './instance-domains.service.ts';
import { DEFAULT_BUDGETS, enqueueInstanceJob, type OperationBudgets } from './instance-jobs.ts';
import { checkResources } from './instance-resources.ts';
import { generateN8nKey, sealSecret } from './instance-secrets.ts';
import { instancesContext, toInstance } from './instances.context.ts';
import {
  countActiveInstances,
  findDeployedInstances,
  findInstancesPage,
  insertCredentials,
  insertInstance,
  lockInstanceForUpdate,
  updateInstance,
  updateSuspendedOfUser,
} from './instances.repository.ts';
import {
  type Capabilities,
  type DeployBody,
  type Instance,
  type InstanceList,
  type ListQuery,
  N8nFieldsSchema,
  type OperatorCapabilities,
  type UpdateBody,
  WordPressFieldsSchema,
} from './instances.schemas.ts';

const CANNOT_CREATE = 'Cannot create instance. Please check your subscription status.';
const DELETE_WHEN_INACTIVE = 'Your subscription is inactive. Deleting instances is disabled.';
export const PREPARING = 'Preparing credentials... This may take a moment.';
const DEFAULT_PHP_VERSION = '8.2';

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
  /** Where backups are kept, and the signed download links. */
  backups: InstanceBackupsDeps;
  /** The server log: why a deploy was refused, in the operator's words. */
  log?: LogLine;
}

export type InstancesService = ReturnType<typeof createInstancesService>;

/** An instance as the platform's background work sees it (usage sampling, the admin's capacity). */
export interface DeployedInstance {
  id: string;
  userId: string;
  type: InstanceType;
  name: string;
  /** As sold: '4GB', '2'. */
  memory: string;
  cpu: string;
  suspended: boolean;
}

/**
 * Customers' instances: their life here (capabilities, list, deploy, update, delete, suspension as the
 * subscription says), and, from the services beside this one, custom domains and SSL
 * (instance-domains.service.ts), backups and storage (instance-backups.service.ts) and credentials
 * (instance-credentials.service.ts). Each asks the engine of the instance's type (driver.engine) for
 * what it needs; every change a job carries out is recorded first and its job added in the same
 * transaction (instance-jobs.ts, instances.tasks.ts).
 */
export function createInstancesService(deps: InstancesDeps) {
  const ctx = instancesContext(deps);
  const budgets = deps.budgets ?? DEFAULT_BUDGETS;
  return {
    ...instanceLifecycle(deps, ctx, budgets),
    ...createInstanceDomainsService(deps, ctx),
    ...createInstanceBackupsService(ctx, deps.backups),
    ...createInstanceCredentialsService(
      { db: deps.db, cipher: deps.cipher, budgets, passwordWaitMs: deps.passwordWaitMs ?? 10_000 },
      ctx,
    ),
  };
}

function instanceLifecycle(
  deps: InstancesDeps,
  ctx: ReturnType<typeof instancesContext>,
  budgets: OperationBudgets,
) {
  const { db, driver, cipher, subscriptions } = deps;
  const startup = deps.startup ?? NOTHING_STARTING;
  const log = deps.log ?? ((line: string) => console.error(`[berth] ${line}`));
  const { publish, own, changeUnlessDeleting, standing } = ctx;

  /** Every type, available or with the customer's reason and the operator's detail. */
  async function capabilityList(): Promise<OperatorCapabilities['types']> {
    const found = await driver.capabilities();
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
    const versions = [...((await driver.engine('wordpress').php?.versions()) ?? [])];
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

  return {
    /** Instances that count against the plan (all but those being deleted). */
    count: (userId: string, trx: DbOrTx = db) => countActiveInstances(trx, userId),

    /** Every deployed instance (not being deleted), as the usage sampler and the admin's view need it. */
    async listDeployed(): Promise<DeployedInstance[]> {
      return (await findDeployedInstances(db)).map((row) => ({
        id: row.id,
        userId: row.user_id,
        type: row.type,
        name: row.name,
        memory: row.memory,
        cpu: row.cpu,
        suspended: row.suspended,
      }));
    },

    /** What the driver can provide; a type its start may still bring counts as available (deploy waits). */
    /**
     * What the driver can provide, with the customer's reason for the rest, and the regions; a type its
     * start may still bring counts as available (deploy waits).
     */
    async capabilities(): Promise<Capabilities> {
      const [types, regions] = await Promise.all([capabilityList(), driver.regions()]);
      return {
        regions: REGIONS.map(({ id, label }) => {
          const region = regions.find((r) => r.id === id);
          return {
            id,
            label,
            available: region?.available ?? false,
            reason: region?.available ? null : (region?.reason ?? 'Not offered by this server'),
          };
        }),
        types: types.map(({ detail: _operators, ...type }) => type),
      };
    },

    /** The types with the operator's detail of each unavailable one (what is missing, what to run). */
    async capabilitiesForOperator(): Promise<OperatorCapabilities> {
      const { store } = deps.backups.vault;
      return {
        types: await capabilityList(),
        backups: {
          offsite: store.offsite,
          where: store.description,
          detail: store.offsite ? null : BACKUPS_NOT_OFFSITE,
        },
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
      const region = (await driver.regions()).find((r) => r.id === body.region);
      if (!region?.available) throw new ValidationError(region?.reason ?? 'Please select a valid region');
      const capability = (await driver.capabilities())[body.type];
      const starting = !capability.available && startup.mayProvide(body.type);
      if (!capability.available && !starting) {
        log(`deploy of ${body.type} refused: ${capability.detail ?? capability.reason}`);
        throw new ProvisioningUnavailableError(body.type, capability);
      }
      await checkResources(driver, body.type, body.memory, body.cpu);
      const site =
        body.type === 'wordpress'
          ? await wordpressFields(body, starting)
          : body.type === 'n8n'
            ? n8nFields(body)
            : undefined;
      if (site?.domain) await domainFree(db, userId, site.domain);
      const domainFields = site?.domain ? await pendingDomain(db, userId, site.domain) : {};
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
