// The composition root: every service of the server is built here, once, from its configuration.
// main.ts, the HTTP app (app.ts), the OpenAPI generator, the benches and the tests all call
// createServices, so they share one Stripe client, one payment-settings cache and one job task list.
import type { TaskList } from 'graphile-worker';
import type { Db } from './db/database.ts';
import { createMailTask, SEND_MAIL_TASK } from './jobs/mail-task.ts';
import { type Cipher, createEphemeralCipher } from './lib/crypto.ts';
import type { LogLine } from './lib/error-reference.ts';
import { startIntervalTask } from './lib/interval-task.ts';
import type { Mailer } from './lib/mailer.ts';
import { createPgRateCounter, createPgRateLimiter } from './lib/rate-limiter.ts';
import { createTokenService } from './lib/tokens.ts';
import { type TurnstileVerifier, turnstileOff } from './lib/turnstile.ts';
import { createAdminService } from './modules/admin/admin.service.ts';
import { createAffiliatesService } from './modules/affiliates/affiliates.service.ts';
import { createAnnouncementsService, FANOUT_TASK } from './modules/announcements/announcements.service.ts';
import { createApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createAccessVerifier, createTokenVersions } from './modules/auth/token-versions.ts';
import { createAvatarsService } from './modules/avatars/avatars.service.ts';
import { createContactService } from './modules/contact/contact.service.ts';
import { createHelpFiles } from './modules/help-desk/help-desk.files.ts';
import { createHelpDeskService } from './modules/help-desk/help-desk.service.ts';
import type { DriverStartup } from './modules/instances/driver-startup.ts';
import type { OperationBudgets } from './modules/instances/instance-jobs.ts';
import { createInstanceTasks } from './modules/instances/instances.tasks.ts';
import { createNotificationHub, type NotificationHub } from './modules/notifications/notifications.hub.ts';
import { createNotificationsService } from './modules/notifications/notifications.service.ts';
import { createPasswordResetService } from './modules/password-reset/password-reset.service.ts';
import { createPaymentSettingsStore } from './modules/payments/payment-settings.ts';
import type { PaymentsConfig } from './modules/payments/payments.config.ts';
import { createPaymentsService } from './modules/payments/payments.service.ts';
import { createPaymentProviders } from './modules/payments/providers.ts';
import {
  createTrialNoticesService,
  TRIAL_NOTICES_INTERVAL_MS,
} from './modules/subscriptions/trial-notices.service.ts';
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
}

/** Work a server does on a timer; main.ts starts and stops it (nothing starts when services are built). */
export interface BackgroundTask {
  start(log: LogLine): void;
  /** Stops the timer and waits for a run in progress; a task never started stops at once. */
  stop(): Promise<void>;
}

function everyInterval(name: string, everyMs: number, run: () => Promise<unknown>): BackgroundTask {
  let task: { stop(): Promise<void> } | undefined;
  return {
    start(log) {
      task ??= startIntervalTask(name, everyMs, run, log);
    },
    async stop() {
      await task?.stop();
      task = undefined;
    },
  };
}

/** How often submitted MetaMask transactions are checked on chain (when ETH_RPC_URL is set). */
const METAMASK_CHECK_INTERVAL_MS = 60_000;
/** How often help desk images never attached to a ticket (and stray files) are looked for. */
const HELP_UPLOAD_SWEEP_INTERVAL_MS = 60 * 60_000;
/** How often pending custom domains are looked at (each on its own slowing schedule, see findDomainsDue). */
const DOMAIN_CHECK_INTERVAL_MS = 60_000;
/** How often the visitor hash of affiliate clicks older than CLICK_VISITOR_DATA_DAYS is cleared. */
const AFFILIATE_CLICK_RETENTION_INTERVAL_MS = 6 * 60 * 60_000;

export function createServices(config: ServicesConfig) {
  const { db, mailer } = config;
  const now = config.now ?? (() => new Date());
  const publicUrl = config.publicUrl ?? 'http://localhost:8080';
  const errorLog = config.errorLog ?? ((line: string) => console.error(`[berth] ${line}`));
  const driver = config.provisioner ?? createUnconfiguredDriver();
  const cipher = config.cipher ?? createEphemeralCipher();
  const tokens = createTokenService(config.jwtSecret);
  const hub = config.notificationHub ?? createNotificationHub();
  // Cached while the hub hears session signals over LISTEN; one primary-key read per check otherwise.
  const tokenVersions = createTokenVersions(db);
  hub.watchSessions({ revoked: tokenVersions.forget, live: tokenVersions.setLive });

  const notifications = createNotificationsService({ db });
  const paymentSettings = createPaymentSettingsStore(db);
  // Affiliates: referral attribution (auth), commissions from recorded payments (payments' listener).
  const affiliates = createAffiliatesService({
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
    log: errorLog,
  });
  const auth = createAuthService({
    db,
    now,
    tokens,
    versions: tokenVersions,
    subscriptions,
    notifications,
    affiliates,
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
    listener: affiliates.paymentListener,
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
    trialNotices,
    helpDesk,
    announcements,
    affiliates,
    apiKeys,
    jobTasks,
    platformJobTasks,
    background: {
      trialNotices: everyInterval('trial notices', TRIAL_NOTICES_INTERVAL_MS, trialNotices.sendDue),
      metamaskChecks: everyInterval(
        'MetaMask checks',
        METAMASK_CHECK_INTERVAL_MS,
        providers.verifyMetaMaskPayments,
      ),
      helpUploadSweep: everyInterval(
        'help desk upload sweep',
        HELP_UPLOAD_SWEEP_INTERVAL_MS,
        helpDesk.sweepOrphans,
      ),
      domainChecks: everyInterval('custom domain checks', DOMAIN_CHECK_INTERVAL_MS, () =>
        instances.checkDueDomains(),
      ),
      affiliateClickRetention: everyInterval(
        'affiliate click retention',
        AFFILIATE_CLICK_RETENTION_INTERVAL_MS,
        affiliates.applyClickRetention,
      ),
    } satisfies Record<string, BackgroundTask>,
  };
}

export type Services = ReturnType<typeof createServices>;
