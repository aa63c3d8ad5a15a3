import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, register } from '../../test/create-test-app.ts';
import { createMemoryDriver } from '../../test/provisioning/memory-driver.ts';
import { createTestDatabase } from '../../test/test-db.ts';
import { backupVault } from '../backup-storage/backup-vault.ts';
import { folderStore } from '../backup-storage/object-store.ts';
import type { Db } from '../db/database.ts';
import { insertBackup, updateBackup } from '../modules/instances/backups/instance-backups.repository.ts';
import { createUnconfiguredDriver } from '../provisioning/unconfigured-driver.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

/**
 * What a client sees of failures: every answer names its request id; an unexpected failure is a 500
 * with a generic message and that id, its details only in the server log under the same id; errors
 * written for customers (4xx) keep their words.
 */

let db: Db;
beforeAll(async () => {
  ({ db } = await createTestDatabase());
});

const RAW =
  "ENOENT: no such file or directory, open '/var/lib/berth/provisioning/sites/9f1c/public/wp-config.php'\n" +
  'installer output: PHP Warning: mysqli_real_connect(): (HY000/1045): Access denied for user ' +
  "'u_9f1c'@'localhost' (using password: YES) in /usr/share/wordpress/wp-includes/class-wpdb.php";

describe('request ids', () => {
  it('puts an X-Request-Id on every answer and in the access log; keeps a safe incoming id only', async () => {
    const access: string[] = [];
    const app = createTestApp(db, { accessLog: (line) => access.push(line) });

    const fresh = await call(app, 'GET', '/api/health');
    const id = fresh.headers.get(REQUEST_ID_HEADER);
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const missing = await call(app, 'GET', '/api/no-such-thing');
    expect(missing.status).toBe(404);
    const other = missing.headers.get(REQUEST_ID_HEADER);
    expect(other).toMatch(/^[0-9a-f]{12}$/);
    expect(other).not.toBe(id);
    expect(access).toEqual([
      expect.stringMatching(new RegExp(`^\\[${id}\\] GET /api/health 200 \\d+ ms$`)),
      expect.stringMatching(new RegExp(`^\\[${other}\\] GET /api/no-such-thing 404 \\d+ ms$`)),
    ]);

    const kept = await app.request('/api/health', { headers: { [REQUEST_ID_HEADER]: 'lb-7f3a.91_c2' } });
    expect(kept.headers.get(REQUEST_ID_HEADER)).toBe('lb-7f3a.91_c2');
    for (const unsafe of ['x'.repeat(65), '../../etc/passwd', 'a b c d e f', 'ab']) {
      const res = await app.request('/api/health', { headers: { [REQUEST_ID_HEADER]: unsafe } });
      expect(res.headers.get(REQUEST_ID_HEADER), unsafe).toMatch(/^[0-9a-f]{12}$/);
    }
  });
});

describe('failures', () => {
  it('answers an unexpected exception with 500, a generic message and the id; the log has the rest', async () => {
    const errors: string[] = [];
    const failing = {
      ...createUnconfiguredDriver(),
      capabilities: async () => {
        throw new Error(RAW);
      },
    };
    const app = createTestApp(db, { provisioner: failing, errorLog: (line) => errors.push(line) });
    const { token } = await register(app);

    const res = await call(app, 'GET', '/api/instances/capabilities', { token });
    expect(res.status).toBe(500);
    const id = res.headers.get(REQUEST_ID_HEADER);
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(res.json).toEqual({
      error: 'internal_error',
      message: `Something went wrong on our side. Reference: ${id}`,
      details: { requestId: id },
    });
    expect(JSON.stringify(res.json)).not.toMatch(/var\/lib|wp-config|mysqli|ENOENT|at .*\.ts/);

    const logged = errors.filter((line) => line.includes(`[${id}]`));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('GET /api/instances/capabilities');
    expect(logged[0]).toContain(RAW);
  });

  it("answers a driver's raw failure with 502, the spec's message and the id; the log has the raw error", async () => {
    const errors: string[] = [];
    // A driver whose WordPress engine has backups, and a backup store that fails with a raw error.
    const withBackups = createMemoryDriver();
    const store = folderStore(path.join(tmpdir(), 'berth-failing-store'));
    const failingVault = backupVault({
      store: {
        ...store,
        remove: async () => {
          throw new Error(RAW);
        },
      },
      key: randomBytes(32),
      spoolDir: path.join(tmpdir(), 'berth-failing-spool'),
    });
    const app = createTestApp(db, {
      provisioner: withBackups,
      backupVault: failingVault,
      errorLog: (line) => errors.push(line),
    });
    const { token, user } = await register(app);
    const site = await db
      .insertInto('instances')
      .values({
        user_id: String(user.id),
        name: 'Blog',
        type: 'wordpress',
        category: 'application',
        region: 'local',
        memory: '4GB',
        cpu: '2',
        status: 'running',
        deployed_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();

    await insertBackup(db, {
      id: 'b-0000000000aa',
      instanceId: site.id,
      kind: 'manual',
      name: 'Before the update',
      note: '',
      location: 'local',
    });
    await updateBackup(db, 'b-0000000000aa', { status: 'complete' });

    const res = await call(app, 'DELETE', `/api/instances/${site.id}/backups/b-0000000000aa`, { token });
    expect(res.status).toBe(502);
    const id = res.headers.get(REQUEST_ID_HEADER);
    expect(res.json).toEqual({
      error: 'operation_failed',
      message: 'Failed to delete backup',
      details: { requestId: id },
    });
    const logged = errors.filter((line) => line.includes(`[${id}]`));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(`DELETE /api/instances/${site.id}/backups/b-0000000000aa answered 502`);
    expect(logged[0]).toContain(RAW);
  });

  it('keeps the message of an error written for the customer (validation, 4xx), without logging it', async () => {
    const errors: string[] = [];
    const app = createTestApp(db, { errorLog: (line) => errors.push(line) });
    const { token } = await register(app);

    const wrong = await call(app, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: 'not-it', newPassword: 'Brand#New-Passw0rd' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get(REQUEST_ID_HEADER)).toMatch(/^[0-9a-f]{12}$/);
    expect(wrong.json).toEqual({
      error: 'validation_error',
      message: 'Current password is incorrect',
      details: { fieldErrors: { currentPassword: ['Current password is incorrect'] } },
    });

    const invalid = await call(app, 'POST', '/api/auth/register', { badBody: { username: 'ab' } });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error).toBe('validation_error');
    expect(invalid.json.message).not.toMatch(/Reference|Something went wrong/);
    expect(errors).toEqual([]);
  });
});
