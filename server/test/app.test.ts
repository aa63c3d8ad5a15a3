import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.ts';
import { call, createTestApp } from './create-test-app.ts';
import { listen } from './listen.ts';
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

  it('answers an oversized body with a 413 that a client sending it all still reads', async () => {
    const server = await listen(createTestApp(db));
    try {
      const body = JSON.stringify({ emailOrUsername: 'x'.repeat(3 * 1024 * 1024), password: 'x' });
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${server.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        expect(res.status).toBe(413);
        expect((await res.json()) as unknown).toMatchObject({ error: 'payload_too_large' });
      }
    } finally {
      await server.close();
    }
  });
});
