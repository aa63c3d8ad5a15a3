import type { Db } from './db/database.ts';
import type { Cipher } from './lib/crypto.ts';
import { createTxtLookup } from './lib/dns-txt.ts';
import type { LogLine } from './lib/error-reference.ts';
import type { InstanceBackupsDeps } from './modules/instances/instances.deps.ts';
import { createInstancesService } from './modules/instances/instances.service.ts';
import type { DriverStartup } from './modules/instances/queue/driver-startup.ts';
import type { OperationBudgets } from './modules/instances/queue/instance-jobs.ts';
import type { NotificationsService } from './modules/notifications/notifications.service.ts';
import {
  createPaymentSettingsStore,
  type PaymentSettingsStore,
  publicPaymentSettings,
} from './modules/payments/payment-settings.ts';
import type { PaymentsConfig } from './modules/payments/payments.config.ts';
import { createSubscriptionsService } from './modules/subscriptions/subscriptions.service.ts';
import type { ProvisioningDriver } from './provisioning/driver.ts';

export interface SubscriptionAndInstanceDeps {
  db: Db;
  now: () => Date;
  driver: ProvisioningDriver;
  cipher: Cipher;
  notifications: Pick<NotificationsService, 'publishInstanceEvent'>;
  budgets?: OperationBudgets;
  /** Where the provisioning driver's start stands (deploys are accepted while it may still bring a type). */
  startup?: DriverStartup;
  passwordWaitMs?: number;
  /** Which payment providers have keys (the methods users may see as enabled). */
  payments?: PaymentsConfig;
  /** The admin's payment settings (createServices shares one store with the payments module). */
  paymentSettings?: PaymentSettingsStore;
  /** DNS servers for custom-domain TXT checks (DNS_RESOLVER); absent: the system's. */
  dnsServers?: readonly string[];
  /** Where instances' backups are kept, and their download links. */
  backups: InstanceBackupsDeps;
  /** The server log (the operator's reason of a refused deploy goes there). */
  log?: LogLine;
}

/**
 * The subscriptions and instances services, which use each other (plan limits count instances; a lapsed
 * subscription suspends them). createServices (services.ts) builds them once for main, the app and the tests.
 */
export function createSubscriptionAndInstanceServices(deps: SubscriptionAndInstanceDeps) {
  const { db, now } = deps;
  const settings = deps.paymentSettings ?? createPaymentSettingsStore(db);
  // The closures run only once both services exist.
  const subscriptions = createSubscriptionsService({
    db,
    now,
    countInstances: (userId, trx) => instances.count(userId, trx),
    instances: { setSuspended: (userId, suspended, trx) => instances.setSuspended(userId, suspended, trx) },
    paymentSettings: async () =>
      publicPaymentSettings(await settings.read(), {
        stripe: deps.payments?.stripe !== undefined,
        paypal: deps.payments?.paypal !== undefined,
      }),
  });
  const instances = createInstancesService({
    db,
    driver: deps.driver,
    cipher: deps.cipher,
    notifications: deps.notifications,
    subscriptions,
    budgets: deps.budgets,
    startup: deps.startup,
    passwordWaitMs: deps.passwordWaitMs,
    txtLookup: createTxtLookup({ servers: deps.dnsServers }),
    backups: deps.backups,
    log: deps.log,
  });
  return { subscriptions, instances };
}
