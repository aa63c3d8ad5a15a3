import type { BackupVault } from '../../backup-storage/backup-vault.ts';
import type { Db } from '../../db/database.ts';
import type { Cipher } from '../../lib/crypto.ts';
import type { TxtLookup } from '../../lib/dns-txt.ts';
import type { LogLine } from '../../lib/error-reference.ts';
import type { TokenService } from '../../lib/tokens.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { SessionChecks } from '../auth/session-checks.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { PaymentSettingsStore } from '../payments/payment-settings.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { DriverStartup } from './queue/driver-startup.ts';
import type { OperationBudgets } from './queue/instance-jobs.ts';

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

/** What backups are built with: where they are kept, the signed download links and the plans' days. */
export interface InstanceBackupsDeps {
  vault: BackupVault;
  tokens: Pick<TokenService, 'signLink' | 'readLink'>;
  /** Whether the session a download link was made in still holds (modules/auth/session-checks.ts). */
  sessions: SessionChecks;
  publicUrl: string;
  now: () => Date;
  /** The days each plan keeps backups (the admin's payment settings). */
  paymentSettings: Pick<PaymentSettingsStore, 'read'>;
}
