import { except } from 'hono/combine';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import pkg from '../package.json' with { type: 'json' };
import type { Db } from './db/database.ts';
import { limitBody, MAX_JSON_BODY_BYTES } from './lib/body-limit.ts';
import { NO_TRUSTED_PROXIES, type TrustedProxies } from './lib/client-address.ts';
import { createRouter } from './lib/create-router.ts';
import { type Cipher, createEphemeralCipher } from './lib/crypto.ts';
import { createErrorHandler, onNotFound } from './lib/error-handler.ts';
import type { LogLine } from './lib/error-reference.ts';
import type { Mailer } from './lib/mailer.ts';
import { buildOpenApiDocument, publicSubset } from './lib/openapi.ts';
import { createPgRateCounter, createPgRateLimiter, type RateLimitRule } from './lib/rate-limiter.ts';
import { requestIds } from './lib/request-id.ts';
import { createTokenService } from './lib/tokens.ts';
import { type TurnstileVerifier, turnstileOff } from './lib/turnstile.ts';
import { mountWebApp } from './lib/web-app.ts';
import { createAdminRouter } from './modules/admin/admin.index.ts';
import { createAdminService } from './modules/admin/admin.service.ts';
import { createApiKeysRouter } from './modules/api-keys/api-keys.index.ts';
import { createApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { type AuthRateLimits, createAuthRouter } from './modules/auth/auth.index.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createAccessVerifier, createTokenVersions } from './modules/auth/token-versions.ts';
import { createAvatarsRouter } from './modules/avatars/avatars.index.ts';
import * as avatarRoutes from './modules/avatars/avatars.routes.ts';
import { createAvatarsService } from './modules/avatars/avatars.service.ts';
import { createConfigRouter } from './modules/config/config.index.ts';
import { createConfigService } from './modules/config/config.service.ts';
import { createContactRouter } from './modules/contact/contact.index.ts';
import { createContactService } from './modules/contact/contact.service.ts';
import { createHealthRouter } from './modules/health/health.index.ts';
import type { DriverStartup } from './modules/instances/driver-startup.ts';
import type { OperationBudgets } from './modules/instances/instance-jobs.ts';
import { createInstancesRouter } from './modules/instances/instances.index.ts';
import { createNotificationHub, type NotificationHub } from './modules/notifications/notifications.hub.ts';
import { createNotificationsRouter } from './modules/notifications/notifications.index.ts';
import { createNotificationsService } from './modules/notifications/notifications.service.ts';
import { createPasswordResetRouter } from './modules/password-reset/password-reset.index.ts';
import { createPasswordResetService } from './modules/password-reset/password-reset.service.ts';
import { createPaymentSettingsStore } from './modules/payments/payment-settings.ts';
import type { PaymentsConfig } from './modules/payments/payments.config.ts';
import { createPaymentsRouter } from './modules/payments/payments.index.ts';
import { createPaymentsService } from './modules/payments/payments.service.ts';
import { createPaymentProviders } from './modules/payments/providers.ts';
import { PUBLIC_API_RATE_LIMIT } from './modules/public-api/public-api.gate.ts';
import { createPublicApiRouter } from './modules/public-api/public-api.index.ts';
import { createSubscriptionsRouter } from './modules/subscriptions/subscriptions.index.ts';
import { createSubscriptionAndInstanceServices } from './platform-services.ts';
import type { ProvisioningDriver } from './provisioning/driver.ts';
import { createUnconfiguredDriver } from './provisioning/unconfigured-driver.ts';

export interface AppDeps {
  db: Db;
  jwtSecret: string;
  /** Outgoing mail: SMTP, the outbox folder, or memory (tests). */
  mailer: Mailer;
  /** Where avatar files are kept (`<BERTH_DATA_DIR>/avatars`). */
  avatarsDir: string;
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXY); absent: none. */
  trustedProxies?: TrustedProxies;
  /** The bot check; off when absent. */
  turnstile?: TurnstileVerifier;
  /** This process's open notification streams; main.ts feeds it from its LISTEN connection. */
  notificationHub?: NotificationHub;
  /** Origin of the web app, for links in e-mails. */
  publicUrl?: string;
  /** Where contact-form messages are mailed. */
  supportEmail?: string;
  /** Directory of the built web app; when absent the server answers only the API. */
  webDistDir?: string;
  rateLimits?: Partial<RateLimits>;
  /** Heartbeat of notification streams. */
  sseHeartbeatMs?: number;
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
  /** One line per request, with its id (main.ts: the server log); absent: none. */
  accessLog?: LogLine;
  /** The details of failed requests, under their request id; absent: stderr. */
  errorLog?: LogLine;
}

export interface RateLimits extends AuthRateLimits {
  passwordReset: RateLimitRule;
  /** Reset requests per e-mail address, whatever the client address. */
  passwordResetAccount: RateLimitRule;
  contact: RateLimitRule;
  /** Requests per API key on /api/v1 (the plan card's 150 per minute). */
  publicApi: RateLimitRule;
}

export const VERSION: string = pkg.version;

export const DEFAULT_RATE_LIMITS: RateLimits = {
  login: { points: 20, windowSeconds: 15 * 60 },
  // Per account: 10 tries in 5 minutes. Someone guessing from many addresses gets 10 guesses per
  // 5 minutes; a stranger who spends them locks the owner out for 5 minutes at most.
  loginAccount: { points: 10, windowSeconds: 5 * 60 },
  register: { points: 30, windowSeconds: 60 * 60 },
  passwordReset: { points: 5, windowSeconds: 15 * 60 },
  // Per e-mail: 3 reset mails in 15 minutes (no mailbox flooding; the owner waits 15 minutes at most).
  passwordResetAccount: { points: 3, windowSeconds: 15 * 60 },
  contact: { points: 5, windowSeconds: 60 * 60 },
  publicApi: PUBLIC_API_RATE_LIMIT,
};

/**
 * Builds the whole HTTP application from its dependencies. It never listens and starts nothing (no
 * timers, no database listeners): main.ts does, so tests and the OpenAPI generator can build it freely.
 */
export function createApp(deps: AppDeps) {
  const { db, mailer } = deps;
  const now = deps.now ?? (() => new Date());
  const turnstile = deps.turnstile ?? turnstileOff;
  const limits = { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits };
  const tokens = createTokenService(deps.jwtSecret);
  const hub = deps.notificationHub ?? createNotificationHub();
  // Cached while the hub hears session signals over LISTEN; one primary-key read per check otherwise.
  const tokenVersions = createTokenVersions(db);
  hub.watchSessions({ revoked: tokenVersions.forget, live: tokenVersions.setLive });
  const verifyToken = createAccessVerifier(tokens, tokenVersions);
  const trustedProxies = deps.trustedProxies ?? NO_TRUSTED_PROXIES;
  const notifications = createNotificationsService({ db });
  const paymentSettings = createPaymentSettingsStore(db);
  const { subscriptions, instances } = createSubscriptionAndInstanceServices({
    db,
    now,
    driver: deps.provisioner ?? createUnconfiguredDriver(),
    cipher: deps.cipher ?? createEphemeralCipher(),
    notifications,
    budgets: deps.jobBudgets,
    startup: deps.driverStartup,
    passwordWaitMs: deps.passwordWaitMs,
    payments: deps.payments,
    paymentSettings,
    dnsServers: deps.dnsServers,
  });
  const auth = createAuthService({
    db,
    now,
    tokens,
    versions: tokenVersions,
    subscriptions,
    notifications,
  });
  const passwordReset = createPasswordResetService({
    db,
    now,
    mailer,
    publicUrl: deps.publicUrl ?? 'http://localhost:8080',
    users: auth,
  });
  const avatars = createAvatarsService({ dir: deps.avatarsDir, users: auth });
  const contact = createContactService({
    db,
    mailer,
    supportEmail: deps.supportEmail ?? 'support@localhost',
  });
  // Known once every router is mounted (below): whether any /api/v1 path exists.
  let publicApiAvailable = false;
  const config = createConfigService({
    turnstileSiteKey: turnstile.siteKey,
    paymentSettings,
    capabilities: instances.capabilities,
    publicApiAvailable: () => publicApiAvailable,
    clock: () => now().getTime(),
  });
  const limiter = createPgRateLimiter(db);
  const publicUrl = deps.publicUrl ?? 'http://localhost:8080';
  const errorLog = deps.errorLog ?? ((line: string) => console.error(`[berth] ${line}`));
  const providers = createPaymentProviders(deps.payments ?? {}, {
    db,
    now,
    subscriptions,
    notifications,
    publicUrl,
    errorLog,
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
  // API keys and the public /api/v1 (issue 11): keys for Pro users; v1 calls the same instances service.
  const apiKeys = createApiKeysService({ db, now, hasProAccess: subscriptions.hasProAccess });
  const publicApi = createPublicApiRouter({
    db,
    instances,
    subscriptions,
    keys: apiKeys,
    count: createPgRateCounter(db),
    rule: limits.publicApi,
  });

  const app = createRouter();
  app.onError(createErrorHandler(errorLog));
  app.notFound(onNotFound);
  app.use('*', requestIds(deps.accessLog));
  app.use('*', secureHeaders({ crossOriginResourcePolicy: false }));
  app.use('/api/*', cors());
  // The avatar upload has its own, larger limit.
  const isAvatarUpload = (path: string, method: string) =>
    path === avatarRoutes.upload.path && method === 'POST';
  app.use(
    '/api/*',
    except((c) => isAvatarUpload(c.req.path, c.req.method), limitBody(MAX_JSON_BODY_BYTES)),
  );
  app.use('/api/*', async (c, next) => {
    c.set('verifyToken', verifyToken);
    c.set('isAdmin', admin.isAdmin);
    c.set('trustedProxies', trustedProxies);
    await next();
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });

  const api = app
    .route('/', createHealthRouter(db, VERSION))
    .route('/', createConfigRouter(config))
    .route('/', createAuthRouter({ auth, limiter, limits, turnstile }))
    .route('/', createAvatarsRouter(avatars))
    .route(
      '/',
      createPasswordResetRouter({
        passwordReset,
        limiter,
        limit: limits.passwordReset,
        accountLimit: limits.passwordResetAccount,
        turnstile,
      }),
    )
    .route('/', createSubscriptionsRouter(subscriptions))
    .route('/', createPaymentsRouter({ payments, subscriptions, webhooks: providers.webhooks }))
    .route('/', createInstancesRouter(instances))
    .route(
      '/',
      createNotificationsRouter({
        notifications,
        tokens,
        tokenVersion: tokenVersions.current,
        hub,
        smtpEnabled: mailer.kind === 'smtp',
        heartbeatMs: deps.sseHeartbeatMs ?? 20_000,
      }),
    )
    .route('/', createContactRouter({ contact, limiter, limit: limits.contact, turnstile }))
    .route('/', createAdminRouter(admin))
    .route('/', createApiKeysRouter(apiKeys))
    .route('/', publicApi);

  for (const router of providers.routers) app.route('/', router);

  const doc = buildOpenApiDocument(app, VERSION);
  const publicDoc = publicSubset(doc);
  publicApiAvailable = Object.keys(publicDoc.paths ?? {}).length > 0;
  app.get('/api/openapi.json', (c) => c.json(doc));
  app.get('/api/v1/openapi.json', (c) => c.json(publicDoc));

  if (deps.webDistDir) mountWebApp(app, deps.webDistDir);
  return api;
}

export type App = ReturnType<typeof createApp>;
