import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.ts';
import { call, createTestApp } from './create-test-app.ts';
import { createTestDatabase } from './test-db.ts';

let db: Db;
beforeAll(async () => {
  ({ db } = await createTestDatabase());
});

describe('the HTTP shell', () => {
  it('reports health with the database and version', async () => {
    const res = await call(createTestApp(db), 'GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'ok',
      database: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const res = await call(createTestApp(db), 'GET', '/api/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'not_found', message: 'No route for GET /api/no-such-thing' });
  });

  it('serves the web app for every UI route, assets as immutable files, and keeps /api for the API', async () => {
    const dist = await mkdtemp(path.join(tmpdir(), 'berth-dist-'));
    await mkdir(path.join(dist, 'assets'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>Berth UI</title>');
    await writeFile(path.join(dist, 'assets', 'app-123.js'), 'console.log(1)');
    await writeFile(path.join(dist, 'favicon.svg'), '<svg/>');
    const app = createTestApp(db, { webDistDir: dist });

    for (const route of [
      '/',
      '/dashboard',
      '/login',
      '/instances/42',
      '/api/docs',
      '/api-reference',
      '/nope',
    ]) {
      const res = await app.request(route);
      expect(res.status, route).toBe(200);
      expect(await res.text(), route).toContain('Berth UI');
    }
    const asset = await app.request('/assets/app-123.js');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(await asset.text()).toBe('console.log(1)');
    expect((await app.request('/favicon.svg')).status).toBe(200);
    expect((await app.request('/api/nope')).status).toBe(404);
    expect((await app.request('/api/health')).headers.get('content-type')).toContain('application/json');
  });
});
