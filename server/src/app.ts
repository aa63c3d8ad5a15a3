import pkg from '../package.json' with { type: 'json' };
import { answerAfterBody, limitBody, MAX_JSON_BODY_BYTES } from './lib/body-limit.ts';
import { NO_TRUSTED_PROXIES, type TrustedProxies } from './lib/client-address.ts';
import { createRouter } from './lib/create-router.ts';
import { createErrorHandler, onNotFound } from './lib/error-handler.ts';
import type { LogLine } from './lib/error-reference.ts';
import { buildOpenApiDocument, publicSubset } from './lib/openapi.ts';
import type { RateLimitRule } from './lib/rate-limiter.ts';
import { refuseNul } from './lib/refuse-nul.ts';
import { responseHeaders } from './lib/response-headers.ts';
import { createServerPages } from './lib/server-pages.ts';
import { mountWebApp } from './lib/web-app.ts';
import { createAdminRouter } from './modules/admin/admin.index.ts';
import { createAffiliatesRouter } from './modules/affiliates/affiliates.index.ts';
import { createAnnouncementsRouter } from './modules/announcements/announcements.index.ts';
import { createApiKeysRouter } from './modules/api-keys/api-keys.index.ts';
import { type AuthRateLimits, createAuthRouter } from './modules/auth/auth.index.ts';
import { createAvatarsRouter } from './modules/avatars/avatars.index.ts';
import * as avatarRoutes from './modules/avatars/avatars.routes.ts';
import { createConfigRouter } from './modules/config/config.index.ts';
import { createConfigService } from './modules/config/config.service.ts';
import { createContactRouter } from './modules/contact/contact.index.ts';
import { createHealthRouter } from './modules/health/health.index.ts';
import { createHelpDeskRouter } from './modules/help-desk/help-desk.index.ts';
import * as helpRoutes from './modules/help-desk/help-desk.routes.ts';
import { createInstancesRouter } from './modules/instances/instances.index.ts';
import { createNotificationsRouter } from './modules/notifications/notifications.index.ts';
import { createPasswordResetRouter } from './modules/password-reset/password-reset.index.ts';
import { createPaymentsRouter } from './modules/payments/payments.index.ts';
import { PUBLIC_API_RATE_LIMIT } from './modules/public-api/public-api.gate.ts';
import { createPublicApiRouter } from './modules/public-api/public-api.index.ts';
import { createRegionsRouter } from './modules/regions/regions.index.ts';
import { createSubscriptionsRouter } from './modules/subscriptions/subscriptions.index.ts';
import { createUsageRouter } from './modules/usage/usage.index.ts';
import type { Services } from './services.ts';

/** What only the HTTP layer needs; everything else comes built in `Services` (services.ts). */
export interface HttpOptions {
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXY); absent: none. */
  trustedProxies?: TrustedProxies;
  /** Directory of the built web app; when absent the server answers only the API. */
  webDistDir?: string;
  rateLimits?: Partial<RateLimits>;
  /** Heartbeat of notification streams. */
  sseHeartbeatMs?: number;
  /** One line per request, with its id (main.ts: the server log); absent: none. */
  accessLog?: LogLine;
}

export interface RateLimits extends AuthRateLimits {
  passwordReset: RateLimitRule;
  /** Reset requests per e-mail address, whatever the client address. */
  passwordResetAccount: RateLimitRule;
  contact: RateLimitRule;
  /** Help desk images per user. */
  helpUpload: RateLimitRule;
  /** Help desk tickets per user. */
  helpSubmit: RateLimitRule;
  /** Referral click reports per client address. */
  affiliateClick: RateLimitRule;
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
  helpUpload: { points: 60, windowSeconds: 60 * 60 },
  helpSubmit: { points: 20, windowSeconds: 60 * 60 },
  affiliateClick: { points: 120, windowSeconds: 60 * 60 },
  publicApi: PUBLIC_API_RATE_LIMIT,
};

/**
 * Wires the services into the HTTP application: middleware, routers, the OpenAPI documents and the web
 * app. It never listens and starts nothing (no timers, no database listeners): main.ts does, so tests
 * and the OpenAPI generator can build it freely.
 */
export function createApp(services: Services, http: HttpOptions = {}) {
  const { db, instances, auth, payments, subscriptions, providers, admin, limiter, turnstile } = services;
  const limits = { ...DEFAULT_RATE_LIMITS, ...http.rateLimits };
  const trustedProxies = http.trustedProxies ?? NO_TRUSTED_PROXIES;
  // Known once every router is mounted (below): whether any /api/v1 path exists.
  let publicApiAvailable = false;
  const config = createConfigService({
    turnstileSiteKey: turnstile.siteKey,
    paymentSettings: services.paymentSettings,
    capabilities: instances.capabilities,
    publicApiAvailable: () => publicApiAvailable,
    clock: () => services.now().getTime(),
  });
  // The public /api/v1: keys of Pro users; every route calls the same instances service as /api.
  const publicApi = createPublicApiRouter({
    db,
    instances,
    subscriptions,
    usage: services.usage,
    keys: services.apiKeys,
    count: services.rateCounter,
    rule: limits.publicApi,
  });

  const app = createRouter();
  app.onError(createErrorHandler(services.errorLog));
  app.notFound(onNotFound);
  // Outermost: no answer leaves before its request's body was read (or thrown away).
  app.use('*', answerAfterBody);
  // Request ids, security headers, CORS on /api/* and the access log, in one pass (lib/response-headers.ts).
  app.use('*', responseHeaders(http.accessLog));
  // Every body is limited; the avatar and help desk image uploads have their own, larger limits.
  const jsonLimit = limitBody(MAX_JSON_BODY_BYTES);
  app.use('/api/*', (c, next) => {
    const { method } = c.req;
    // GET and HEAD carry no body. Checked first and cheaply: looking at a body (even to find none)
    // makes the Node adapter build a full Request, which used to cost reads a third of their speed.
    if (method === 'GET' || method === 'HEAD') return next();
    const { path } = c.req;
    if (method === 'POST' && (path === avatarRoutes.upload.path || path === helpRoutes.upload.path))
      return next();
    return jsonLimit(c, next);
  });
  // No NUL character in a path, query or body gets past here (400), whichever route it is for.
  app.use('/api/*', refuseNul);
  app.use('/api/*', (c, next) => {
    c.set('verifyToken', services.verifyToken);
    c.set('isAdmin', admin.isAdmin);
    c.set('trustedProxies', trustedProxies);
    return next();
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
    .route('/', createAvatarsRouter(services.avatars))
    .route(
      '/',
      createPasswordResetRouter({
        passwordReset: services.passwordReset,
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
        notifications: services.notifications,
        tokens: services.tokens,
        tokenVersion: services.tokenVersions.current,
        hub: services.hub,
        smtpEnabled: services.mailer.kind === 'smtp',
        heartbeatMs: http.sseHeartbeatMs ?? 20_000,
      }),
    )
    .route('/', createContactRouter({ contact: services.contact, limiter, limit: limits.contact, turnstile }))
    .route('/', createAdminRouter(admin))
    .route('/', createRegionsRouter(services.regions))
    .route(
      '/',
      createHelpDeskRouter({
        help: services.helpDesk,
        limiter,
        limits: { upload: limits.helpUpload, submit: limits.helpSubmit },
      }),
    )
    .route('/', createAnnouncementsRouter(services.announcements))
    .route(
      '/',
      createAffiliatesRouter({ affiliates: services.affiliates, limiter, clickLimit: limits.affiliateClick }),
    )
    .route('/', createApiKeysRouter(services.apiKeys))
    .route('/', createUsageRouter(services.usage))
    .route('/', publicApi);

  for (const router of providers.routers) app.route('/', router);

  const doc = buildOpenApiDocument(app, VERSION);
  const publicDoc = publicSubset(doc);
  publicApiAvailable = Object.keys(publicDoc.paths ?? {}).length > 0;
  app.get('/api/openapi.json', (c) => c.json(doc));
  app.get('/api/v1/openapi.json', (c) => c.json(publicDoc));

  if (http.webDistDir) {
    const pages = createServerPages({
      distDir: http.webDistDir,
      publicConfig: () => config.get(),
      // A signed-in page's render calls the API through this app, in-process.
      fetch: async (request) => app.request(request),
    });
    mountWebApp(app, http.webDistDir, pages);
  }
  return api;
}

export type App = ReturnType<typeof createApp>;
