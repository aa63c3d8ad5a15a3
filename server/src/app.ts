import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import pkg from '../package.json' with { type: 'json' };
import type { Db } from './db/database.ts';
import { createRouter } from './lib/create-router.ts';
import { onError, onNotFound } from './lib/error-handler.ts';
import { buildOpenApiDocument, publicSubset } from './lib/openapi.ts';
import { createPgRateLimiter } from './lib/rate-limiter.ts';
import { createTokenService } from './lib/tokens.ts';
import { mountWebApp } from './lib/web-app.ts';
import { type AuthRateLimits, createAuthRouter } from './modules/auth/auth.index.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createHealthRouter } from './modules/health/health.index.ts';
import { createSubscriptionsRouter } from './modules/subscriptions/subscriptions.index.ts';
import { createSubscriptionsService } from './modules/subscriptions/subscriptions.service.ts';

export interface AppDeps {
  db: Db;
  jwtSecret: string;
  /** Directory of the built web app; when absent the server answers only the API. */
  webDistDir?: string;
  rateLimits?: Partial<AuthRateLimits>;
  now?: () => Date;
}

export const VERSION: string = pkg.version;

export const DEFAULT_RATE_LIMITS: AuthRateLimits = {
  login: { points: 20, windowSeconds: 15 * 60 },
  register: { points: 30, windowSeconds: 60 * 60 },
};

/** Builds the whole HTTP application from its dependencies. It never listens: main.ts does. */
export function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date());
  const tokens = createTokenService(deps.jwtSecret);
  const subscriptions = createSubscriptionsService({
    db: deps.db,
    now,
    // Instances arrive with the provisioning engine; until then nobody has any.
    countInstances: async () => 0,
  });
  const auth = createAuthService({ db: deps.db, tokens, subscriptions });
  const limiter = createPgRateLimiter(deps.db);

  const app = createRouter();
  app.onError(onError);
  app.notFound(onNotFound);
  app.use('*', secureHeaders({ crossOriginResourcePolicy: false }));
  app.use('/api/*', cors());
  app.use('/api/*', async (c, next) => {
    c.set('verifyToken', tokens.verify);
    await next();
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });

  const api = app
    .route('/', createHealthRouter(deps.db, VERSION))
    .route('/', createAuthRouter(auth, limiter, { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits }))
    .route('/', createSubscriptionsRouter(subscriptions));

  const doc = buildOpenApiDocument(app, VERSION);
  const publicDoc = publicSubset(doc);
  app.get('/api/openapi.json', (c) => c.json(doc));
  app.get('/api/v1/openapi.json', (c) => c.json(publicDoc));

  if (deps.webDistDir) mountWebApp(app, deps.webDistDir);
  return api;
}

export type App = ReturnType<typeof createApp>;
