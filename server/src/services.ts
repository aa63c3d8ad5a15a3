// The composition root: every service of the server is built here, once, from its configuration.
// main.ts, the HTTP app (app.ts), the OpenAPI generator, the benches and the tests all call
// createServices, so they share one Stripe client, one payment-settings cache and one job task list.
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TaskList } from 'graphile-worker';
import { backupKeyFrom } from './backup-storage/archive-cipher.ts';
import { type BackupVault, backupVault } from './backup-storage/backup-vault.ts';
import { folderStore } from './backup-storage/object-store.ts';
import type { Db } from './db/database.ts';
import { createMailTask, SEND_MAIL_TASK } from './jobs/mail-task.ts';
import { type Cipher, createEphemeralCipher } from './lib/crypto.ts';
import type { LogLine } from './lib/error-reference.ts';
import type { Mailer } from './lib/mailer.ts';
import { createPgRateCounter, createPgRateLimiter } from './lib/rate-limiter.ts';
import { createTokenService } from './lib/tokens.ts';
import { type TurnstileVerifier, turnstileOff } from './lib/turnstile.ts';
import { createAdminService } from './modules/admin/admin.service.ts';
import { createAffiliatesServices } from './modules/affiliates/affiliates.service.ts';
import { createAnnouncementsService, FANOUT_TASK } from './modules/announcements/announcements.service.ts';
import { createApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createSessionChecks } from './modules/auth/session-checks.ts';
import { createAccessVerifier, createTokenVersions } from './modules/auth/token-versions.ts';
import { createAvatarsService } from './modules/avatars/avatars.service.ts';
import { createContactService } from './modules/contact/contact.service.ts';
import { createHelpFiles } from './modules/help-desk/help-desk.files.ts';
import { createHelpDeskService } from './modules/help-desk/help-desk.service.ts';
import { createBackupSchedule } from './modules/instances/backups/backup-schedule.ts';
import { createBackupTasks } from './modules/instances/backups/instance-backups.tasks.ts';
import { queueMoves } from './modules/instances/backups/instance-move-task.ts';
import { createInstanceLiveStates } from './modules/instances/jobs/instance-live-states.ts';
import { createInstanceTasks } from './modules/instances/jobs/instances.tasks.ts';
import { createStorageAlerts } from './modules/instances/jobs/storage-alerts.ts';
import type { DriverStartup } from './modules/instances/queue/driver-startup.ts';
import type { OperationBudgets } from './modules/instances/queue/instance-jobs.ts';
import { createNotificationHub, type NotificationHub } from './modules/notifications/notifications.hub.ts';
import { createNotificationsService } from './modules/notifications/notifications.service.ts';
import { createPasswordResetService } from './modules/password-reset/password-reset.service.ts';
import { createPaymentSettingsStore } from './modules/payments/payment-settings.ts';
import type { PaymentsConfig } from './modules/payments/payments.config.ts';
import { createPaymentsService } from './modules/payments/payments.service.ts';
import { createPaymentProviders } from './modules/payments/providers.ts';
import { createRegionsService } from './modules/regions/regions.service.ts';
import { createTrialNoticesService } from './modules/subscriptions/trial-notices.service.ts';
import { createUsageService } from './modules/usage/usage.service.ts';
import { createSubscriptionAndInstanceServices } from './platform-services.ts';
import type { ProvisioningDriver } from './provisioning/driver.ts';
import { createUnconfiguredDriver } from './provisioning/unconfigured-driver.ts';

export interface ServicesConfig {
  db: Db;
  jwtSecret: string;
  /** Outgoing mail: SMTP, the outbox folder, or memory (tests). */
  mailer: Mailer;
  /** Where avatar files are kept (`<BERTH_DATA_DIR>/avatars`). */
  avatarsDir: string;
  /** Where help desk images are kept (`<BERTH_DATA_DIR>/help-uploads`). */
  helpUploadsDir: string;
  /** The bot check; off when absent. */
  turnstile?: TurnstileVerifier;
  /** This process's open notification streams; main.ts feeds it from its LISTEN connection. */
  notificationHub?: NotificationHub;
  /** Origin of the web app, for links in e-mails and payment return pages. */
  publicUrl?: string;
  /** Where contact-form messages are mailed. */
  supportEmail?: string;
  /** What deploys instances (main.ts: the driver PROVISIONER names); absent: every type is unavailable. */
  provisioner?: ProvisioningDriver;
  /** Encrypts instance credentials at rest (main.ts: ENCRYPTION_KEY); absent: a key of this process only. */
  cipher?: Cipher;
  /** Deadlines of the instance jobs (tests shorten them). */
  jobBudgets?: OperationBudgets;
  /** How long a database password change waits for its job before answering 202. */
  passwordWaitMs?: number;
  now?: () => Date;
  /** Payment provider keys and endpoints (main.ts: STRIPE_*, PAYPAL_*, ETH_*); absent: no provider. */
  payments?: PaymentsConfig;
  /** DNS servers for custom-domain TXT checks (main.ts: DNS_RESOLVER); absent: the system's. */
  dnsServers?: readonly string[];
  /** Where the provisioning driver's start stands (main.ts); absent: nothing is starting. */
  driverStartup?: DriverStartup;
  /** The details of failures that answer no error (and of failed requests); absent: stderr. */
  errorLog?: LogLine;
  /** The affiliate minimum payout in minor units (AFFILIATE_MIN_PAYOUT); absent: $50. */
  affiliateMinimumPayoutMinor?: number;
  /**
   * Where backups go (main.ts: the BACKUP_S3_* bucket, else `<BERTH_DATA_DIR>/backups`, encrypted with a
   * key derived from ENCRYPTION_KEY); absent: a temporary folder and a key of this process only.
   */
  backupVault?: BackupVault;
}

/** A vault in a temporary folder with a key of this process: tests and tools that keep nothing. */
function temporaryVault(): BackupVault {
  const dir = path.join(tmpdir(), 'berth-backups', randomUUID());
  return backupVault({
    store: folderStore(path.join(dir, 'store')),
    key: backupKeyFrom(randomBytes(32)),
    spoolDir: path.join(dir, 'spool'),
  });
}

export function createServices(config: ServicesConfig) {
  const { db, mailer } = config;
  const now = config.now ?? (() => new Date());
  const publicUrl = config.publicUrl ?? 'http://localhost:8080';
  const errorLog = config.errorLog ?? ((line: string) => console.error(`[berth] ${line}`));
  const driver = config.provisioner ?? createUnconfiguredDriver();
  const cipher = config.cipher ?? createEphemeralCipher();
  const vault = config.backupVault ?? temporaryVault();
  const tokens = createTokenService(config.jwtSecret);
  const hub = config.notificationHub ?? createNotificationHub();
  // Cached while the hub hears session signals over LISTEN; one primary-key read per check otherwise.
  const tokenVersions = createTokenVersions(db);
  hub.watchSessions({ revoked: tokenVersions.forget, live: tokenVersions.setLive });

  const notifications = createNotificationsService({ db });
  const paymentSettings = createPaymentSettingsStore(db);
  // Affiliates: referral attribution (auth), commissions from recorded payments (payments' listener).
  const affiliates = createAffiliatesServices({
    db,
    now,
    cipher,
    notifications,
    publicUrl,
    minimumPayoutMinor: config.affiliateMinimumPayoutMinor,
  });
  const { subscriptions, instances } = createSubscriptionAndInstanceServices({
    db,
    now,
    driver,
    cipher,
    notifications,
    budgets: config.jobBudgets,
    startup: config.driverStartup,
    passwordWaitMs: config.passwordWaitMs,
    payments: config.payments,
    paymentSettings,
    dnsServers: config.dnsServers,
    backups: {
      vault,
      tokens,
      sessions: createSessionChecks(db, tokenVersions, now),
      publicUrl,
      now,
      paymentSettings,
    },
    log: errorLog,
  });
  const auth = createAuthService({
    db,
    now,
    tokens,
    versions: tokenVersions,
    subscriptions,
    notifications,
    // Registration attributes the new user to a referral; the profile tells the affiliate status.
    affiliates: {
      attributeSignup: affiliates.referrals.attributeSignup,
      statusOf: affiliates.profiles.statusOf,
    },
  });
  const passwordReset = createPasswordResetService({ db, now, mailer, publicUrl, users: auth });
  const avatars = createAvatarsService({ dir: config.avatarsDir, users: auth });
  const contact = createContactService({
    db,
    mailer,
    supportEmail: config.supportEmail ?? 'support@localhost',
  });
  const providers = createPaymentProviders(config.payments ?? {}, {
    db,
    now,
    subscriptions,
    notifications,
    publicUrl,
    errorLog,
    listener: affiliates.commissions,
  });
  const payments = createPaymentsService({
    db,
    now,
    tokens,
    subscriptions,
    configured: providers.configured,
    settingsStore: paymentSettings,
    checkout: providers.checkout,
    renewing: providers.renewing,
    publicUrl,
  });
  const admin = createAdminService({ db, now, subscriptions, renewals: payments });
  // API keys of Pro users (the public /api/v1 checks them; app.ts mounts it).
  const apiKeys = createApiKeysService({ db, now, hasProAccess: subscriptions.hasProAccess });
  const trialNotices = createTrialNoticesService({ db, now, notifications, subscriptions });
  const helpDesk = createHelpDeskService({
    db,
    now,
    files: createHelpFiles(config.helpUploadsDir),
    notifications,
    subscriptions,
    publicUrl,
  });
  const announcements = createAnnouncementsService({ db, notifications, publicUrl });

  /** Jobs that need no provisioning driver: announcement delivery and queued mail (retried on failure). */
  const platformJobTasks: TaskList = {
    [FANOUT_TASK]: announcements.fanoutTask(),
    [SEND_MAIL_TASK]: createMailTask(mailer),
  };
  /** Every graphile-worker task: instance operations and the platform's own (main.ts runs them). */
  const jobTasks: TaskList = {
    ...createInstanceTasks({ db, driver, cipher, notifications, startup: config.driverStartup }),
    ...createBackupTasks({ db, driver, cipher, vault, notifications }),
    ...platformJobTasks,
  };

  return {
    db,
    now,
    mailer,
    turnstile: config.turnstile ?? turnstileOff,
    publicUrl,
    errorLog,
    driver,
    tokens,
    hub,
    tokenVersions,
    verifyToken: createAccessVerifier(tokens, tokenVersions),
    limiter: createPgRateLimiter(db),
    /** Counts requests per key and says how many remain (the public API's RateLimit headers). */
    rateCounter: createPgRateCounter(db),
    notifications,
    paymentSettings,
    subscriptions,
    instances,
    auth,
    passwordReset,
    avatars,
    contact,
    providers,
    payments,
    admin,
    regions: createRegionsService(driver, { moveOff: (ids) => queueMoves(db, ids) }),
    trialNotices,
    helpDesk,
    announcements,
    affiliates,
    apiKeys,
    jobTasks,
    storageAlerts: createStorageAlerts({ db, driver, notifications }),
    vault,
    /** Daily backups of every instance, retention by plan, and the clean-up after a crash. */
    backupSchedule: createBackupSchedule({ db, now, driver, vault, paymentSettings }),
    instanceLiveStates: createInstanceLiveStates({ db, driver, notifications }),
    /** What instances use (sampled by background.ts every 15 s), warnings, the admin's capacity. */
    usage: createUsageService({ db, now, driver, instances, notifications }),
    platformJobTasks,
  };
}

export type Services = ReturnType<typeof createServices>;
