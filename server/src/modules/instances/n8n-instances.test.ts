import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callAs,
  createTestApp,
  createTestServices,
  type DeployBody,
  present,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitFor,
  waitForBackup,
  waitForGone,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { frontDoorRequest, n8nSession, webhookWorkflow } from '../../../test/provisioning/n8n-client.ts';
import { testArchives } from '../../../test/provisioning/test-archives.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { type Cipher, createEphemeralCipher } from '../../lib/crypto.ts';
import { DEFAULT_RUNTIMES_DIR, missingRuntimeReason } from '../../provisioning/apps/n8n/n8n-runtime.ts';
import { systemUser } from '../../provisioning/local/host/host.ts';
import { n8nNames, n8nPaths } from '../../provisioning/local/n8n/n8n-state.ts';
import { openSecret } from './instance-secrets.ts';
import { findCredentials } from './instances.repository.ts';

/**
 * n8n instances end to end through the API: the real local driver (n8n from the shared runtime in its
 * sandbox, Caddy in front), the real job runner, and a client that only uses what the API returns.
 * The owner fields n8n refuses and the 404 to another user are in site-rules.test.ts on the memory
 * driver (they run where n8n is not installed too).
 */

const missing = missingRuntimeReason(DEFAULT_RUNTIMES_DIR);
if (missing) console.warn(`[n8n API tests skipped] ${missing}`);

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let cipher: Cipher;
let services: ReturnType<typeof createTestServices>;
let owner: { token: string; userId: string };
let id = '';
let url = '';
/** What the backup "Before cleanup" holds: a workflow and a credential (encrypted with the key). */
let saved = { workflowId: '', credentialId: '', backupId: '' };

const suffix = randomBytes(3).toString('hex');
const deploy = {
  name: 'Automations',
  type: 'n8n',
  region: 'us-east-1',
  email: `owner-${suffix}@example.com`,
  password: `Harbour${suffix}7`,
} satisfies DeployBody;

const api = callAs(
  () => app,
  () => owner.token,
);

describe.skipIf(missing !== undefined)('n8n instances through the API', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    const testDb = await createTestDatabase();
    db = testDb.db;
    prov = await startTestProvisioning({ sites: true });
    cipher = createEphemeralCipher();
    // The platform's backup storage (a folder), shared by the app and the jobs as in main.ts.
    const { vault } = await testArchives();
    app = createTestApp(db, { provisioner: prov.driver, cipher, backupVault: vault });
    runner = await startTestRunner({ ...testDb, driver: prov.driver, cipher, vault });
    services = createTestServices(db, { provisioner: prov.driver, cipher, backupVault: vault });
    const { token, user } = await register(app);
    owner = { token, userId: String(user.id) };
  }, 300_000);

  afterAll(async () => {
    await runner?.stop();
    await prov?.stop();
  }, 120_000);

  it('offers n8n', async () => {
    const capabilities = await api('GET', '/api/instances/capabilities');
    expect(capabilities.json.types.find((t: { type: string }) => t.type === 'n8n')).toMatchObject({
      available: true,
      reason: null,
    });
  });

  it('deploys: running, the editor on the temporary URL, the deploy credentials log in as the owner', {
    timeout: 240_000,
  }, async () => {
    const started = performance.now();
    const res = await api('POST', '/api/instances/deploy', deploy);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    id = res.json.instance.id;
    const instance = await waitForStatus(app, owner.token, id, 'running', 200_000);
    console.log(`n8n deploy through the API to running: ${(performance.now() - started).toFixed(0)} ms`);
    expect(instance).toMatchObject({ type: 'n8n', ownerEmail: deploy.email });
    expect(instance.url).toMatch(/^http:\/\/[a-z0-9]{12}\.localhost:\d+$/);
    expect(instance.adminUrl).toBe(`${instance.url}/`);
    url = present(instance.url, 'the editor URL');
    const editor = await frontDoorRequest(url, 'GET', '/');
    expect(editor.status).toBe(200);
    expect(editor.text).toContain('n8n');
    const session = await n8nSession(url, deploy.email, deploy.password);
    expect(session.login.json().data).toMatchObject({ email: deploy.email, role: 'global:owner' });
    // The encryption key is generated once and stored encrypted with the instance's credentials.
    const stored = await findCredentials(db, id);
    const secret = stored && openSecret(cipher, id, stored.secret);
    expect(secret?.n8nKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(stored?.secret).not.toContain(secret?.n8nKey ?? 'x');
  });

  it('runs a webhook workflow through Caddy; backup → delete → restore brings it and a credential back', {
    timeout: 240_000,
  }, async () => {
    const session = await n8nSession(url, deploy.email, deploy.password);
    const created = await session.call('POST', '/rest/workflows', webhookWorkflow('Orders', 'orders', 'ok'));
    const workflow = created.json().data as { id: string; versionId: string };
    expect(
      (
        await session.call('POST', `/rest/workflows/${workflow.id}/activate`, {
          versionId: workflow.versionId,
        })
      ).status,
    ).toBe(200);
    const hook = await frontDoorRequest(url, 'POST', '/webhook/orders', { body: { ping: 'one' } });
    expect(hook.json()).toMatchObject({ answer: 'ok', echo: 'one' });
    const credential = await session.call('POST', '/rest/credentials', {
      name: 'Shop API',
      type: 'httpHeaderAuth',
      data: { name: 'X-Key', value: `key-${suffix}` },
    });
    const credentialId = (credential.json().data as { id: string }).id;

    const backup = await api('POST', `/api/instances/${id}/backups/new`, { name: 'Before cleanup' });
    expect(backup.status, JSON.stringify(backup.json)).toBe(201);
    expect(await waitForBackup(app, owner.token, id, backup.json.id)).toMatchObject({
      name: 'Before cleanup',
      status: 'complete',
    });

    const after = await n8nSession(url, deploy.email, deploy.password);
    await after.call('POST', `/rest/workflows/${workflow.id}/deactivate`, {});
    expect((await after.call('POST', `/rest/workflows/${workflow.id}/archive`)).status).toBe(200);
    expect((await after.call('DELETE', `/rest/workflows/${workflow.id}`)).status).toBe(200);
    expect((await after.call('DELETE', `/rest/credentials/${credentialId}`)).status).toBe(200);

    saved = { workflowId: workflow.id, credentialId, backupId: backup.json.id };
    const restored = await api('POST', `/api/instances/${id}/backups/${backup.json.id}/restore`);
    expect([restored.status, restored.json.message]).toEqual([202, 'Restore initiated']);
    await waitForStatus(app, owner.token, id, 'running', 60_000);
    const back = await n8nSession(url, deploy.email, deploy.password);
    expect((await back.call('GET', `/rest/workflows/${workflow.id}`)).json().data).toMatchObject({
      name: 'Orders',
    });
    const decrypted = await back.call('GET', `/rest/credentials/${credentialId}?includeData=true`);
    expect(decrypted.json().data).toMatchObject({ name: 'Shop API', data: { name: 'X-Key' } });
    // The restored workflow is active again: its webhook answers.
    const again = await frontDoorRequest(url, 'POST', '/webhook/orders', { body: { ping: 'two' } });
    expect(again.json()).toMatchObject({ answer: 'ok', echo: 'two' });
  });

  it('suspends with the subscription (offline page) and resumes with the same data', {
    timeout: 180_000,
  }, async () => {
    await db
      .updateTable('subscriptions')
      .set({ trial_ends_at: new Date(Date.now() - 60_000) })
      .where('user_id', '=', owner.userId)
      .execute();
    await services.subscriptions.suspendInstancesOf(owner.userId);
    await waitForStatus(app, owner.token, id, 'suspended', 60_000);
    const offline = await frontDoorRequest(url, 'GET', '/');
    expect(offline.status).toBe(503);
    expect(offline.text).toContain('This site is temporarily offline');
    await db
      .updateTable('subscriptions')
      .set({ trial_ends_at: new Date(Date.now() + 3_600_000) })
      .where('user_id', '=', owner.userId)
      .execute();
    await services.subscriptions.resumeInstancesOf(owner.userId);
    await waitForStatus(app, owner.token, id, 'running', 150_000);
    expect((await frontDoorRequest(url, 'GET', '/')).status).toBe(200);
    await n8nSession(url, deploy.email, deploy.password);
  });

  it('delete leaves nothing: process, user, data, route, backups', { timeout: 120_000 }, async () => {
    const res = await api('DELETE', `/api/instances/${id}`);
    expect(res.status).toBe(202);
    await waitForGone(app, owner.token, id, 90_000);
    const paths = n8nPaths(prov.root, id);
    expect(systemUser(n8nNames(id).unixUser)).toBeUndefined();
    for (const gone of [paths.dataDir, paths.stateFile, paths.pidFile, `${prov.root}/backups/${id}`])
      expect(existsSync(gone), gone).toBe(false);
    expect((await frontDoorRequest(url, 'GET', '/')).status).toBe(404);
  });

  it('its backup restores into a new n8n instance: the workflow, and a credential that decrypts', {
    timeout: 300_000,
  }, async () => {
    const listed = await api('GET', '/api/deleted-instances/backups');
    const kept = listed.json.backups.find((b) => b.id === saved.backupId);
    expect(kept).toMatchObject({ instance: { id, name: 'Automations', product: 'n8n' }, restorable: true });
    const res = await api('POST', `/api/deleted-instances/backups/${saved.backupId}/restore`, {
      name: 'Automations again',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const newId = res.json.instance.id;
    await waitFor(
      async () =>
        (await api('GET', '/api/notifications')).json.items.find(
          (n: { title: string; message: string }) =>
            n.title === 'Backup restored' && n.message.includes('Automations again'),
        ),
      { timeoutMs: 280_000, what: 'the restore into the new instance' },
    );
    const instance = await waitForStatus(app, owner.token, newId, 'running', 60_000);
    const newUrl = present(instance.url, 'the new editor URL');
    // The owner of the restored data signs in; the credential decrypts with the deleted instance's key.
    const back = await n8nSession(newUrl, deploy.email, deploy.password);
    expect((await back.call('GET', `/rest/workflows/${saved.workflowId}`)).json().data).toMatchObject({
      name: 'Orders',
    });
    const decrypted = await back.call('GET', `/rest/credentials/${saved.credentialId}?includeData=true`);
    expect(decrypted.json().data).toMatchObject({ name: 'Shop API', data: { name: 'X-Key' } });
  });
});
