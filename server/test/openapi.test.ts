import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderOpenApi } from '../scripts/generate-openapi.ts';
import type { Db } from '../src/db/database.ts';
import { createTestApp } from './create-test-app.ts';
import { createTestDatabase } from './test-db.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

let db: Db;
beforeAll(async () => {
  ({ db } = await createTestDatabase());
});

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string }>>;
  components: { schemas?: Record<string, unknown> };
}

async function redoclyLint(doc: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'berth-openapi-'));
  const file = path.join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(doc));
  const bin = path.join(root, 'node_modules/.bin/redocly');
  const { stdout, stderr } = await run(bin, ['lint', file, '--config', path.join(root, 'redocly.yaml')], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  return stdout + stderr;
}

describe('the OpenAPI contract', () => {
  it('matches the committed openapi/openapi.json (run `npm run gen:openapi` after changing routes)', async () => {
    const committed = await readFile(path.join(root, 'openapi/openapi.json'), 'utf8');
    expect(committed).toBe(await renderOpenApi());
  });

  it('is served at /api/openapi.json as OpenAPI 3.1 with stable operation ids, and passes redocly lint', async () => {
    const res = await createTestApp(db).request('/api/openapi.json');
    const doc = (await res.json()) as OpenApiDoc;
    expect(doc.openapi).toBe('3.1.0');
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(ids).toEqual(
      expect.arrayContaining([
        'auth.register',
        'auth.login',
        'auth.profile',
        'health.get',
        'subscriptions.status',
        'config.get',
        'passwordReset.request',
        'passwordReset.verify',
        'passwordReset.reset',
        'avatars.upload',
        'avatars.remove',
        'avatars.get',
        'notifications.list',
        'notifications.markRead',
        'notifications.remove',
        'notifications.removeAll',
        'notifications.config',
        'notifications.streamToken',
        'notifications.stream',
        'contact.submit',
        'subscriptions.canCreateInstance',
        'instances.list',
        'instances.capabilities',
        'instances.deploy',
        'instances.get',
        'instances.update',
        'instances.remove',
        'instances.access',
        'instances.changePassword',
      ]),
    );
    expect(await redoclyLint(doc)).toMatch(/valid/i);
  });

  it('matches the committed openapi/openapi.v1.json (the public /api/v1 document)', async () => {
    const committed = await readFile(path.join(root, 'openapi/openapi.v1.json'), 'utf8');
    expect(committed).toBe(await renderOpenApi('public'));
  });

  it('serves the public subset at /api/v1/openapi.json without a key: the 15 routes, both key schemes, lint-clean', async () => {
    const res = await createTestApp(db).request('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as OpenApiDoc & {
      info: { description: string };
      components: { securitySchemes?: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${p}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/v1/instances',
        'GET /api/v1/instances/{instanceId}',
        'POST /api/v1/instances',
        'DELETE /api/v1/instances/{instanceId}',
        'POST /api/v1/instances/{instanceId}/password',
        'GET /api/v1/instances/{instanceId}/access',
        'POST /api/v1/instances/{instanceId}/domain',
        'DELETE /api/v1/instances/{instanceId}/domain',
        'POST /api/v1/instances/{instanceId}/ssl/enable',
        'GET /api/v1/instances/{instanceId}/ssl/status',
        'POST /api/v1/instances/{instanceId}/backups/new',
        'POST /api/v1/instances/{instanceId}/backups/{backupId}/restore',
        'DELETE /api/v1/instances/{instanceId}/backups/{backupId}',
        'GET /api/v1/instances/{instanceId}/backups',
        'POST /api/v1/instances/{instanceId}/backups/{backupId}/download',
      ].sort(),
    );
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      ApiKeyBearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    // The error table of the spec, word for word.
    for (const message of [
      'Invalid or missing API key',
      'API access requires Pro plan subscription',
      'Instance not found',
      'Rate limit exceeded. Please try again later.',
      'Credentials not ready yet',
    ])
      expect(doc.info.description).toContain(message);
    expect(doc.components.schemas ?? {}).not.toHaveProperty('RegisterRequest');
    const lint = await redoclyLint(doc);
    expect(lint).toMatch(/valid/i);
    expect(lint).not.toMatch(/warning/i);
  });
});

/** A schema of the public document, by name, as plain JSON Schema. */
type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
};

describe('the public API document against the spec (platform-area "Public API")', () => {
  it('defaults `type` to n8n, carries ssl.isPrimary and phpmyadmin, and names errors as the error table', async () => {
    const doc = JSON.parse(await readFile(path.join(root, 'openapi/openapi.v1.json'), 'utf8')) as OpenApiDoc;
    const schema = (name: string) => doc.components.schemas?.[name] as JsonSchema;
    const create = schema('PublicCreateInstanceRequest');
    expect(create.properties?.type?.default).toBe('n8n');
    expect(create.required).not.toContain('type');
    expect(create.properties?.region?.default).toBe('us-east-1');
    expect(create.properties?.memory?.default).toBe('4GB');
    expect(create.properties?.cpu?.default).toBe('2');

    // customDomain {domain, isActive, addedAt, ssl {status, isPrimary, message, lastChecked}}
    const ssl = schema('CustomDomain').properties?.ssl;
    expect(Object.keys(ssl?.properties ?? {})).toEqual(
      expect.arrayContaining(['status', 'isPrimary', 'message', 'lastChecked']),
    );
    expect(ssl?.required).toContain('isPrimary');
    // Database credentials: host, port, name, user, password, connectionString, phpmyadmin.
    const database = schema('InstanceAccess').properties?.database;
    expect(database?.required).toEqual(
      expect.arrayContaining(['host', 'port', 'name', 'user', 'password', 'connectionString', 'phpmyadmin']),
    );

    const error = schema('PublicError');
    expect(error.properties?.error?.enum).toEqual(
      expect.arrayContaining(['Unauthorized', 'Forbidden', 'Not Found', 'Too Many Requests']),
    );
    expect(error.properties?.details?.required).toEqual(['code']);
  });
});
