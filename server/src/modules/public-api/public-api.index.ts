import type { MiddlewareHandler } from 'hono';
import type { Db } from '../../db/database.ts';
import type { AppEnv } from '../../lib/app-env.ts';
import { createRouter } from '../../lib/create-router.ts';
import type { ErrorBody } from '../../lib/error-handler.ts';
import type { RateCounter, RateLimitRule } from '../../lib/rate-limiter.ts';
import type { ApiKeysService } from '../api-keys/api-keys.service.ts';
import { typeName } from '../instances/instance-catalog.ts';
import type { DeployBody } from '../instances/instances.schemas.ts';
import type { InstancesService } from '../instances/instances.service.ts';
import { kindOf } from '../instances/kinds/kinds.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { UsageService } from '../usage/usage.service.ts';
import { apiKeyGate } from './public-api.gate.ts';
import { idempotent } from './public-api.idempotency.ts';
import * as routes from './public-api.routes.ts';
import { PUBLIC_ERROR_NAMES, type PublicCreateInstance } from './public-api.schemas.ts';
import * as siteRoutes from './public-api-sites.routes.ts';

const CREDENTIALS_NOT_READY = 'Credentials not ready yet';

export interface PublicApiDeps {
  db: Db;
  /** What the public API does to instances: the same operations as /api, nothing more. */
  instances: Pick<
    InstancesService,
    | 'list'
    | 'get'
    | 'deploy'
    | 'remove'
    | 'access'
    | 'changePassword'
    | 'addDomain'
    | 'removeDomain'
    | 'requestSsl'
    | 'sslStatus'
    | 'listBackups'
    | 'createBackup'
    | 'restoreBackup'
    | 'deleteBackup'
    | 'downloadLink'
  >;
  subscriptions: Pick<SubscriptionsService, 'get'>;
  usage: Pick<UsageService, 'report'>;
  keys: Pick<ApiKeysService, 'identify' | 'requirePro'>;
  count: RateCounter;
  rule: RateLimitRule;
}

/** The success envelope of /api/v1. */
const done = <T>(message: string, data: T) => ({ success: true as const, message, data });

/**
 * The v1 create body in the shape of /api's deploy body: the same service checks it. A type's own fields
 * sit in the object its kind names (`wordpress`, `n8n`), under their v1 names.
 */
function toDeployBody(body: PublicCreateInstance): DeployBody {
  const own = kindOf(body.type).publicFields;
  const given: Record<string, string | undefined> = (own && body[own.group]) ?? {};
  const typeFields = Object.fromEntries(
    Object.entries(own?.fields ?? {}).map(([name, field]) => [field, given[name]]),
  );
  return {
    name: body.name,
    description: body.description,
    type: body.type,
    region: body.region,
    memory: body.memory,
    cpu: body.cpu,
    domainType: body.domain ? (body.domain.type === 'custom' ? 'Custom Domain' : 'Temporary') : undefined,
    customDomain: body.domain?.value,
    ...typeFields,
  };
}

/**
 * Rewrites every error answer of /api/v1 (the app's error handler, validation, the gate, an unknown
 * path) into the public API's form: `error` is the status's name from the spec's error table
 * (PUBLIC_ERROR_NAMES), the machine code moves to `details.code`; message and details stay.
 */
const publicErrorNames: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const { status } = c.res;
  if (status < 400 || !c.res.headers.get('content-type')?.includes('application/json')) return;
  const body = (await c.res.clone().json()) as Partial<ErrorBody>;
  if (typeof body.error !== 'string' || typeof body.message !== 'string') return;
  const name = PUBLIC_ERROR_NAMES[status as keyof typeof PUBLIC_ERROR_NAMES] ?? (c.res.statusText || 'Error');
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  const renamed = { error: name, message: body.message, details: { ...body.details, code: body.error } };
  // Emptied first: Hono copies the previous answer's headers into a new one (content-length among them).
  c.res = undefined;
  c.res = new Response(JSON.stringify(renamed), { status, headers });
};

/**
 * /api/v1: the public API for Pro developers, authenticated by API key. Every route calls the instances
 * service /api uses, with the key's owner as the user: ownership (another user's instance is 404), plan
 * limits and suspension hold exactly as there. Only the envelope differs.
 */
export function createPublicApiRouter({
  db,
  instances,
  subscriptions,
  usage,
  keys,
  count,
  rule,
}: PublicApiDeps) {
  const router = createRouter();
  router.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Your API key from /api-access (`berth_sk_…`)',
  });
  router.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyBearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'The same API key as `Authorization: Bearer berth_sk_…` (a login token is not accepted)',
  });
  // Outermost: every error answer of /api/v1, whoever made it, carries the spec's error names.
  router.use('/api/v1/*', publicErrorNames);
  // '/api/v1/instances/*' also matches '/api/v1/instances' itself: one registration, one count.
  router.use('/api/v1/instances/*', ...apiKeyGate({ keys, count, rule }));
  router.on('POST', ['/api/v1/instances', '/api/v1/instances/:instanceId/backups/new'], idempotent(db));

  const user = (c: { var: { apiKey: { userId: string } } }) => c.var.apiKey.userId;

  return router
    .openapi(routes.list, async (c) => {
      const [page, subscription] = await Promise.all([
        instances.list(user(c), c.req.valid('query')),
        subscriptions.get(user(c)),
      ]);
      return c.json(done('Instances retrieved', { ...page, maxInstances: subscription.maxInstances }), 200);
    })
    .openapi(routes.create, async (c) => {
      const instance = await instances.deploy(user(c), toDeployBody(c.req.valid('json')));
      return c.json(done('Instance deployment initiated', { instance }), 201);
    })
    .openapi(routes.getOne, async (c) => {
      const instance = await instances.get(user(c), c.req.valid('param').instanceId);
      return c.json(done('Instance retrieved', { instance }), 200);
    })
    .openapi(routes.remove, async (c) => {
      const instance = await instances.remove(user(c), c.req.valid('param').instanceId);
      const data = { instanceId: instance.id, name: instance.name, deletedAt: new Date().toISOString() };
      return c.json(done('Instance deletion initiated', data), 200);
    })
    .openapi(routes.password, async (c) => {
      const { instanceId } = c.req.valid('param');
      const body = c.req.valid('json');
      const outcome = await instances.changePassword(user(c), instanceId, body);
      if (outcome === 'pending') return c.json(done('Password change initiated', { instanceId }), 202);
      return c.json(done(`${typeName(body.type)} password updated`, { instanceId }), 200);
    })
    .openapi(routes.access, async (c) => {
      const { instanceId } = c.req.valid('param');
      const result = await instances.access(user(c), instanceId);
      if ('preparing' in result) return c.json(done(CREDENTIALS_NOT_READY, { instanceId }), 202);
      return c.json(done('Access credentials', result), 200);
    })
    .openapi(siteRoutes.addDomain, async (c) => {
      const { instanceId } = c.req.valid('param');
      const instance = await instances.addDomain(user(c), instanceId, c.req.valid('json').domain);
      return c.json(done('Custom domain added successfully', { instance }), 200);
    })
    .openapi(siteRoutes.removeDomain, async (c) => {
      const instance = await instances.removeDomain(user(c), c.req.valid('param').instanceId);
      return c.json(done('Custom domain removed successfully', { instance }), 200);
    })
    .openapi(siteRoutes.enableSsl, async (c) => {
      const result = await instances.requestSsl(user(c), c.req.valid('param').instanceId);
      return c.json(done('Requested SSL. It may take a moment to activate.', result), 200);
    })
    .openapi(siteRoutes.sslStatus, async (c) => {
      const result = await instances.sslStatus(user(c), c.req.valid('param').instanceId);
      return c.json(done('SSL status retrieved', result), 200);
    })
    .openapi(siteRoutes.listBackups, async (c) => {
      const backups = await instances.listBackups(user(c), c.req.valid('param').instanceId);
      return c.json(done('Backups retrieved', { backups }), 200);
    })
    .openapi(siteRoutes.createBackup, async (c) => {
      const { instanceId } = c.req.valid('param');
      const backupId = await instances.createBackup(
        user(c),
        instanceId,
        c.req.valid('json'),
        c.get('requestId'),
      );
      return c.json(done('Backup creation started', { instanceId, backupId }), 201);
    })
    .openapi(siteRoutes.restoreBackup, async (c) => {
      const { instanceId, backupId } = c.req.valid('param');
      await instances.restoreBackup(user(c), instanceId, backupId, c.get('requestId'));
      return c.json(done('Restore initiated', { instanceId, backupId }), 202);
    })
    .openapi(siteRoutes.deleteBackup, async (c) => {
      const { instanceId, backupId } = c.req.valid('param');
      await instances.deleteBackup(user(c), instanceId, backupId);
      return c.json(done('Backup deleted', { instanceId, backupId }), 200);
    })
    .openapi(siteRoutes.backupDownloadLink, async (c) => {
      const { instanceId, backupId } = c.req.valid('param');
      // Made with an API key: bound to the user's token version (no sign-in to end it).
      const link = await instances.downloadLink({ userId: user(c) }, instanceId, backupId);
      return c.json(done('Download link created', link), 200);
    })
    .openapi(routes.usage, async (c) => {
      const report = await usage.report(user(c), c.req.valid('param').instanceId, c.req.valid('query').range);
      return c.json(done('Usage retrieved', report), 200);
    });
}
