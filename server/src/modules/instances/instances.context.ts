import type { Db, DbOrTx } from '../../db/database.ts';
import type { InstanceRow, InstanceRowUpdate } from '../../db/tables/instances.ts';
import {
  backendCall,
  ConflictError,
  NotFoundError,
  OperationFailedError,
  SubscriptionInactiveError,
} from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { InstanceEngine } from '../../provisioning/engine.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import { PENDING_ACTIVATION, verificationRecord } from './domain-verification.ts';
import { featuresOfEngine, requireFeature } from './instance-features.ts';
import { findInstance, updateInstance } from './instances.repository.ts';
import type { Instance, InstanceFeatures } from './instances.schemas.ts';
import { kindOf } from './kinds/kinds.ts';

/**
 * What the instance services share (instances.service.ts, instance-domains.service.ts,
 * instance-backups.service.ts, instance-credentials.service.ts): finding the customer's instance (404
 * for anyone else's), the engine of its type and its optional capabilities, announcing a change on the
 * live stream, the subscription check, and the API shape of a row.
 */
export interface InstancesContextDeps {
  db: Db;
  driver: ProvisioningDriver;
  notifications: Pick<NotificationsService, 'publishInstanceEvent'>;
  subscriptions: Pick<SubscriptionsService, 'get'>;
}

/** What a customer reads when the driver fails a synchronous call (also in the routes' 502 answers). */
export const DRIVER_FAILED = {
  addDomain: 'Failed to add custom domain',
  removeDomain: 'Failed to remove custom domain',
  checkSsl: 'Failed to check SSL status',
  requestSsl: 'Failed to request SSL',
} as const;

/** The optional capabilities an engine may have (engine.ts). */
type OptionalCapability = 'password' | 'domains' | 'backups' | 'storage';

export function instancesContext({ db, driver, notifications, subscriptions }: InstancesContextDeps) {
  const publish = (trx: DbOrTx, row: InstanceRow) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status: row.status, statusMessage: row.status_message },
      trx,
    );

  /** The user's instance or 404 (also for another user's id and for ids that are no uuid). */
  async function own(userId: string, id: string): Promise<InstanceRow> {
    const row = isUuid(id) ? await findInstance(db, userId, id) : undefined;
    if (!row) throw new NotFoundError('Instance not found');
    return row;
  }

  /**
   * The capability of the row's engine: a ValidationError with `lacking` when its type has none by
   * nature (a database has no domains, for instance), a FeatureUnavailableError (409) with the engine's
   * reason when this server does not offer it (instance-features.ts).
   */
  function capabilityOf<K extends OptionalCapability>(
    row: InstanceRow,
    capability: K,
    lacking: string,
  ): NonNullable<InstanceEngine[K]> {
    const engine = driver.engine(row.type);
    requireFeature(engine, capability, lacking);
    // requireFeature holds `true` to come with the object (instance-features.ts offerOf).
    return engine[capability] as NonNullable<InstanceEngine[K]>;
  }

  return {
    db,
    publish,
    own,
    capabilityOf,
    /** The API shape of a row, with its type's features as the driver's engine offers them. */
    toInstance: (row: InstanceRow) => toInstance(row, featuresOfEngine(driver.engine(row.type))),
    /** The engine of the row's type (for a feature without a capability object: SFTP, usage). */
    engineOf: (row: Pick<InstanceRow, 'type'>) => driver.engine(row.type),

    /**
     * The user's instance that has `capability` and is deployed (for domain, SSL, backup and storage
     * calls): 400 `lacking` when its type has no such capability, 409 while it is being deleted or was
     * never deployed.
     */
    async ownDeployed<K extends OptionalCapability>(
      userId: string,
      id: string,
      capability: K,
      lacking: string,
    ): Promise<{ row: InstanceRow; capability: NonNullable<InstanceEngine[K]> }> {
      const row = await own(userId, id);
      const found = capabilityOf(row, capability, lacking);
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (row.deployed_at === null) {
        throw new ConflictError(
          row.status === 'deploying'
            ? 'The instance is still deploying; try again once it runs'
            : 'The instance was never deployed',
        );
      }
      return { row, capability: found };
    },

    /** Changes the row and announces it, in one transaction; a ConflictError once it is being deleted. */
    changeUnlessDeleting: (id: string, patch: InstanceRowUpdate) =>
      db.transaction().execute(async (trx) => {
        const row = await updateInstance(trx, id, patch, { statusNot: 'deleting' });
        if (!row) throw new ConflictError('The instance is being deleted');
        await publish(trx, row);
        return row;
      }),

    /**
     * A synchronous driver call: the driver's own errors (unavailable, invalid input) answer as they
     * are; anything else answers 502 with `message`, the raw error logged under the request id.
     */
    viaDriver: <T>(message: string, work: () => Promise<T>): Promise<T> =>
      backendCall(work, (cause) => new OperationFailedError(message, { cause })),

    standing: async (userId: string) => (await subscriptions.get(userId)).standing,

    async refuseWhenInactive(userId: string, message: string) {
      if ((await subscriptions.get(userId)).standing === 'inactive')
        throw new SubscriptionInactiveError(message);
    },
  };
}

export type InstancesContext = ReturnType<typeof instancesContext>;

/** The API shape of an instance row; `features` as its engine offers them (featuresOfEngine). */
function toInstance(row: InstanceRow, features: InstanceFeatures): Instance {
  const { entry, shown } = kindOf(row.type);
  return {
    _id: row.id,
    id: row.id,
    name: row.name,
    description: row.description,
    type: entry.name,
    product: row.type,
    category: entry.category,
    status: row.status,
    statusMessage: row.status_message,
    url: row.url,
    adminUrl: row.admin_url,
    ...shown(row.settings),
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
    features,
    metadata: 'connection' in entry ? { database: true, [entry.connection.flag]: true } : { database: false },
  };
}
