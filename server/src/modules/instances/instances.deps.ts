import type { Db } from '../../db/database.ts';
import type { Cipher } from '../../lib/crypto.ts';
import type { TxtLookup } from '../../lib/dns-txt.ts';
import type { LogLine } from '../../lib/error-reference.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { InstanceBackupsDeps } from './backups/instance-backups.service.ts';
import type { DriverStartup } from './deploy/driver-startup.ts';
import type { OperationBudgets } from './jobs/instance-jobs.ts';

/** What the instances service and its parts are built with (createServices in services.ts). */
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
