import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deployN8n, required } from '../../../../test/provisioning/engines.ts';
import { killLeftoverServers } from '../../../../test/provisioning/leftover-servers.ts';
import { frontDoorRequest, n8nSession, webhookWorkflow } from '../../../../test/provisioning/n8n-client.ts';
import { type OutsideHost, startOutsideHost } from '../../../../test/provisioning/outside-host.ts';
import { curl, ensureSiteTestPackages } from '../../../../test/provisioning/site-clients.ts';
import { removeSiteUsersUnder } from '../../../../test/provisioning/site-sandbox.ts';
import { testArchives } from '../../../../test/provisioning/test-archives.ts';
import {
  DEFAULT_RUNTIMES_DIR,
  installedN8nRuntime,
  missingRuntimeReason,
} from '../../apps/n8n/n8n-runtime.ts';
import type { ProvisioningDriver } from '../../driver.ts';
import type { N8nSpec, SiteUrls } from '../../engine.ts';
import { caddyPaths } from '../front-door/caddy.ts';
import { hostControlGroups } from '../host/control-groups.ts';
import { systemUser } from '../host/host.ts';
import { descendants } from '../host/supervisor.ts';
import { mountPoints } from '../host/tenant-disks.ts';
import { ensureSiteUser } from '../host/tenant-users.ts';
import { createLocalDriver } from '../local-driver.ts';
import { generateN8nKey, localN8n } from './n8n-instances.ts';
import { N8N_INSIDE, n8nSandboxCommand, runInN8nSandbox } from './n8n-sandbox.ts';
import { n8nNames, n8nPaths, readN8nState, removeN8nState, writeN8nState } from './n8n-state.ts';
import { ensureN8nCompileCache, ensureN8nTemplate } from './n8n-warm-ups.ts';

/**
 * Real n8n (the shared runtime, `npm run install-n8n`) behind real Caddy, in its sandbox and network
 * namespace: deploy → editor and owner login through the temporary URL, a webhook workflow run through
 * the front door, backup/restore with credentials that still decrypt, suspend/resume, delete, and what
 * the instance's code can and cannot reach (the platform's loopback services, another instance, other
 * tenants' files).
 */

const runtimesDir = DEFAULT_RUNTIMES_DIR;
/** Each instance's disk in these tests (MiB). */
const DISK_MB = 256;
const missing = missingRuntimeReason(runtimesDir);
if (missing) console.warn(`[n8n tests skipped] ${missing}`);

let root = '';
/** An instance's sandbox as the driver builds it. */
const sandboxOfInstance = (id: string) =>
  localN8n(
    root,
    { runtimesDir, baseDomain: 'localhost', groups: hostControlGroups('berth') },
    undefined,
    () => {},
  ).sandboxOf(id);
/** Our Node binary as instances see it. */
const N8N_NODE = N8N_INSIDE.node;
let driver: ProvisioningDriver;
const logs: string[] = [];
const suffix = randomBytes(3).toString('hex');
const specOf = (who: string): N8nSpec => ({
  id: randomUUID(),
  ownerEmail: `${who}-${suffix}@example.com`,
  ownerPassword: `Secret${suffix}9`,
  encryptionKey: generateN8nKey(),
});
const specA = specOf('alice');
const specB = specOf('bob');
let a: SiteUrls;
let b: SiteUrls;

/** A service on the host's loopback no instance may reach (stands for any 127.0.0.1 service). */
let canary: http.Server;
/** A service on the host's own non-loopback address (where the API listens with HOST=0.0.0.0). */
let hostOwn: http.Server | undefined;
/** Another machine: public (reachable, "the internet") and private (the operator's LAN) addresses. */
let outside: OutsideHost | undefined;
const hostAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

/** Root's folder and file outside every instance that customers' links point at. */
const outsideDir = `/tmp/berth-n8n-outside-${suffix}`;
const outsideFile = path.join(outsideDir, 'secret');
/** The outside file's content (not a substring of any path: the archive holds the links' targets). */
const outsideSecret = `root-only-${randomBytes(8).toString('hex')}`;
/** The outside as it was when B planted its links (the delete test checks it again). */
let planted: ReturnType<typeof outsideSnapshot> | undefined;
const outsideSnapshot = () => {
  const dir = statSync(outsideDir);
  const file = statSync(outsideFile);
  return {
    dir: { uid: dir.uid, gid: dir.gid, mode: dir.mode },
    file: { uid: file.uid, gid: file.gid, mode: file.mode, size: file.size },
    entries: readdirSync(outsideDir),
    content: readFileSync(outsideFile, 'utf8'),
  };
};

const listen = (server: http.Server, host: string) =>
  new Promise<number>((resolve) =>
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port)),
  );

describe.skipIf(missing !== undefined)('n8n instances (local driver, real n8n and Caddy)', () => {
  let canaryPort = 0;
  let hostOwnPort = 0;

  beforeAll(async () => {
    await ensureSiteTestPackages();
    root = await mkdtemp('/tmp/berth-n8n-');
    canary = http.createServer((_q, r) => r.end('host loopback service'));
    canaryPort = await listen(canary, '127.0.0.1');
    if (hostAddress) {
      hostOwn = http.createServer((_q, r) => r.end('the host itself'));
      hostOwnPort = await listen(hostOwn, hostAddress);
    }
    outside = await startOutsideHost();
    // The migrated template database new instances start from (made once per runtime, reused after).
    const nobody = systemUser('nobody');
    // and the compile cache their n8n reads (made once per runtime by a warm-up run, root's after).
    if (nobody) {
      await ensureN8nTemplate(runtimesDir, nobody, (line) => logs.push(line));
      await ensureN8nCompileCache(runtimesDir, nobody, (line) => logs.push(line));
    }
    driver = createLocalDriver({
      dataRoot: root,
      sites: {},
      runtimesDir,
      n8n: { diskMb: DISK_MB },
      log: (line) => logs.push(line),
    });
    await driver.start();
    expect((await driver.capabilities()).n8n).toEqual({ available: true });
    const started = performance.now();
    [a, b] = await Promise.all([deployN8n(driver, specA), deployN8n(driver, specB)]);
    console.log(`two n8n instances deployed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 300_000);

  afterAll(async () => {
    console.log(logs.filter((line) => line.includes('n8n')).join('\n'));
    canary?.close();
    hostOwn?.close();
    outside?.stop();
    await driver?.stop().catch(() => {});
    if (root) {
      killLeftoverServers(root);
      await removeSiteUsersUnder(root);
      await rm(root, { recursive: true, force: true });
    }
    await rm(outsideDir, { recursive: true, force: true });
  }, 120_000);

  it('serves the editor on the temporary URL and the deploy credentials log in as the owner', async () => {
    expect(a.url).toMatch(/^http:\/\/[a-z0-9]{12}\.localhost:\d+$/);
    expect(a.adminUrl).toBe(`${a.url}/`);
    const editor = await frontDoorRequest(a.url, 'GET', '/');
    expect(editor.status).toBe(200);
    expect(editor.text).toContain('n8n');
    const session = await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword);
    expect(session.login.json().data).toMatchObject({ email: specA.ownerEmail, role: 'global:owner' });
    // The wrong password does not; B's owner is not A's.
    const wrong = await frontDoorRequest(a.url, 'POST', '/rest/login', {
      body: { emailOrLdapLoginId: specB.ownerEmail, password: specB.ownerPassword },
    });
    expect(wrong.status).toBe(401);
    // n8n's editor knows its public address (webhook URLs shown in the editor follow it).
    const settings = await session.call('GET', '/rest/settings');
    expect(settings.json().data).toMatchObject({ urlBaseWebhook: `${a.url}/` });
  });

  it('passes the editor push connection (websocket /rest/push) through the front door', async () => {
    const session = await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword);
    const cookie = (session.login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const target = new URL(a.url);
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1',
        port: Number(target.port),
        path: '/rest/push?pushRef=berthtest',
        agent: false,
        headers: {
          Host: target.host,
          Cookie: cookie,
          'browser-id': 'berth-test',
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          Origin: a.url,
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        },
      });
      request.on('upgrade', (response, socket) => {
        socket.destroy();
        resolve(response.statusCode ?? 0);
      });
      request.on('response', (response) => resolve(response.statusCode ?? 0));
      request.on('error', reject);
      request.end();
    });
    expect(status).toBe(101);
  });

  it('runs an activated webhook workflow on a request to its production URL through Caddy', async () => {
    const session = await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword);
    const created = await session.call(
      'POST',
      '/rest/workflows',
      webhookWorkflow('Hook', 'hello', 'hi there'),
    );
    expect(created.status).toBe(200);
    const workflow = created.json().data as { id: string; versionId: string };
    const activated = await session.call('POST', `/rest/workflows/${workflow.id}/activate`, {
      versionId: workflow.versionId,
    });
    expect({ status: activated.status, text: activated.text }).toMatchObject({ status: 200 });
    const run = await frontDoorRequest(a.url, 'POST', '/webhook/hello', { body: { ping: 'pong' } });
    expect({ status: run.status, text: run.text }).toMatchObject({ status: 200 });
    expect(run.json()).toMatchObject({ answer: 'hi there', echo: 'pong' });
    // B has no such webhook: instances do not share workflows.
    expect((await frontDoorRequest(b.url, 'POST', '/webhook/hello', { body: {} })).status).toBe(404);
  });

  it("cannot reach the platform's loopback services, another instance or other tenants' files from inside", async () => {
    const n8n = localN8n(
      root,
      { runtimesDir, baseDomain: 'localhost', groups: hostControlGroups('berth') },
      undefined,
      () => {},
    );
    const sandbox = n8n.sandboxOf(specA.id);
    // The compile cache every instance's n8n reads is root's and read-only, and bound read-only inside.
    const cache = sandbox.compileCache;
    expect(cache).toBeDefined();
    const cacheDir = `/opt/node-cache/${cache?.name}`;
    const cached = readdirSync(cache?.dir ?? '');
    expect(cached.length).toBeGreaterThan(100);
    expect(statSync(cache?.dir ?? '')).toMatchObject({ uid: 0, mode: 0o40755 });
    expect(statSync(path.join(cache?.dir ?? '', cached[0] ?? ''))).toMatchObject({ uid: 0, mode: 0o100644 });
    const pgPort = Number(new URL(inject('pgAdminUrl')).port || 5432);
    const portOfB = JSON.parse(
      (await import('node:fs')).readFileSync(n8nPaths(root, specB.id).stateFile, 'utf8'),
    ).port as number;
    const probe = `
      const net = require('node:net'); const fs = require('node:fs'); const http = require('node:http');
      const tcp = (host, port) => new Promise((resolve) => {
        // Through pasta a connect may be accepted before the host side is tried: talk HTTP to be sure.
        const s = net.connect({ host, port, timeout: 3000 });
        let got = '';
        s.on('connect', () => s.write('GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n'));
        s.on('data', (d) => { got += d; });
        s.on('timeout', () => { s.destroy(); resolve('timeout'); });
        s.on('error', (e) => resolve(e.code || 'error'));
        s.on('close', () => resolve(got ? 'answered: ' + got.slice(-100) : 'closed'));
      });
      const exists = (p) => { try { fs.statSync(p); return true; } catch { return false; } };
      const attempt = (f) => { try { f(); return 'done'; } catch (e) { return e.code || 'error'; } };
      (async () => {
        const out = {
          canary: await tcp('127.0.0.1', ${canaryPort}),
          platformPostgres: await tcp('127.0.0.1', ${pgPort}),
          otherInstance: await tcp('127.0.0.1', ${portOfB}),
          caddyHttp: await tcp('127.0.0.1', ${Number(new URL(a.url).port)}),
          caddyAdminPort: await tcp('127.0.0.1', 2019),
          gateway: await tcp('10.0.2.2', ${canaryPort}),
          metadata: await tcp('169.254.169.254', 80),
          linkLocal: await tcp('169.254.1.1', 80),
          unblock: attempt(() => require('node:child_process').execFileSync('/usr/bin/ip', ['route', 'del', 'blackhole', '169.254.0.0/16'], { stdio: 'pipe' })),
          metadataAfter: await tcp('169.254.169.254', 80),
          hostItself: ${hostAddress ? `await tcp('${hostAddress}', ${hostOwnPort})` : "'no host address'"},
          internet: await tcp('${outside?.publicAddress}', ${outside?.port}),
          privateNetwork: await tcp('${outside?.privateAddress}', ${outside?.port}),
          seesOwnData: exists('/data/.n8n'),
          seesRoot: exists(${JSON.stringify(root)}),
          seesOtherData: exists(${JSON.stringify(n8nPaths(root, specB.id).dataDir)}),
          seesCaddyAdmin: exists(${JSON.stringify(caddyPaths(root).adminSocket)}),
          shadow: exists('/etc/shadow'),
          uid: process.getuid(),
          users: fs.readFileSync('/etc/passwd', 'utf8').trim().split('\\n').length,
          processes: fs.readdirSync('/proc').filter((e) => /^\\d+$/.test(e)).length,
          cacheEntries: fs.readdirSync(${JSON.stringify(cacheDir)}).length,
          cacheNewFile: attempt(() => fs.writeFileSync(${JSON.stringify(`${cacheDir}/planted`)}, 'x')),
          cacheOverwrite: attempt(() => fs.writeFileSync(${JSON.stringify(`${cacheDir}/${cached[0]}`)}, 'x')),
          cacheChmod: attempt(() => fs.chmodSync(${JSON.stringify(`${cacheDir}/${cached[0]}`)}, 0o666)),
        };
        console.log(JSON.stringify(out));
      })();
    `;
    await writeFile(path.join(n8nPaths(root, specA.id).tmpDir, 'probe.cjs'), probe);
    await chmod(path.join(n8nPaths(root, specA.id).tmpDir, 'probe.cjs'), 0o644);
    const { stdout } = await runInN8nSandbox(sandbox, ['/opt/node/bin/node', '/tmp/probe.cjs'], {
      network: true,
      timeoutMs: 60_000,
    });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(seen).toMatchObject({
      canary: 'ECONNREFUSED',
      platformPostgres: 'ECONNREFUSED',
      otherInstance: 'ECONNREFUSED',
      caddyHttp: 'ECONNREFUSED',
      caddyAdminPort: 'ECONNREFUSED',
      seesOwnData: true,
      seesRoot: false,
      seesOtherData: false,
      seesCaddyAdmin: false,
      shadow: false,
      uid: systemUser(n8nNames(specA.id).unixUser)?.uid,
      users: 1,
      // Cloud metadata and all link-local addresses are blackholed, and the instance cannot lift that.
      metadata: 'EINVAL',
      linkLocal: 'EINVAL',
      unblock: 'error',
      metadataAfter: 'EINVAL',
      cacheEntries: cached.length,
      cacheNewFile: 'EROFS',
      cacheOverwrite: 'EROFS',
      cacheChmod: 'EROFS',
    });
    // The gateway is not mapped to the host: the host's loopback canary never answers there.
    expect(seen.gateway).not.toContain('host loopback service');
    expect(seen.processes).toBeLessThan(5);
    // Another machine's public address answers (workflows call APIs); its private one, in a range the
    // operator did not allow, and the host's own address (the API listens there) are blackholed.
    expect(seen.internet).toContain('outside world');
    expect(seen.privateNetwork).toBe('EINVAL');
    if (hostAddress) expect(seen.hostItself).toBe('EINVAL');
    else console.warn('[host address check skipped] this host has no non-loopback IPv4 address');
  }, 90_000);

  it('has its own disk as its storage: a write past its size fails inside and costs the host nothing more', async () => {
    const sandbox = localN8n(
      root,
      { runtimesDir, baseDomain: 'localhost', groups: hostControlGroups('berth') },
      undefined,
      () => {},
    ).sandboxOf(specA.id);
    const { stdout } = await runInN8nSandbox(sandbox, [
      '/bin/sh',
      '-c',
      'dd if=/dev/zero of=/data/fill bs=1M count=400 2>&1; echo "size=$(stat -c %s /data/fill)"; rm -f /data/fill',
    ]);
    expect(stdout).toContain('No space left on device');
    const written = Number(/size=(\d+)/.exec(stdout)?.[1]);
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(DISK_MB * 1024 * 1024);
    // The instance still works once the file is gone.
    expect((await frontDoorRequest(a.url, 'GET', '/')).status).toBe(200);
  }, 60_000);
  it('cannot make a FIFO or device node in its sandbox; the running n8n is under the same filter', async () => {
    const sandbox = sandboxOfInstance(specA.id);
    // Without network (bwrap alone) and with it (prlimit → pasta → sh → bwrap: the instance's own line).
    for (const network of [false, true]) {
      for (const command of [
        ['/usr/bin/mkfifo', '/tmp/fifo'],
        ['/usr/bin/mknod', '/tmp/pipe', 'p'],
        ['/usr/bin/mknod', '/tmp/null', 'c', '1', '3'],
      ]) {
        await expect(
          runInN8nSandbox(sandbox, command, { network, timeoutMs: 30_000 }),
          `${command.join(' ')} (network: ${network})`,
        ).rejects.toMatchObject({ output: expect.stringContaining('Operation not permitted') });
      }
      // Files are still made (Node writes and reads one).
      const node = await runInN8nSandbox(
        sandbox,
        [
          N8N_NODE,
          '-e',
          "require('fs').writeFileSync('/tmp/f', 'ok'); console.log(require('fs').readFileSync('/tmp/f', 'utf8'))",
        ],
        { network, timeoutMs: 30_000 },
      );
      expect(node.stdout.trim()).toBe('ok');
    }
    for (const name of ['fifo', 'pipe', 'null']) {
      expect(existsSync(path.join(n8nPaths(root, specA.id).tmpDir, name))).toBe(false);
    }
    // n8n itself (Node under pasta and bwrap, started by the supervisor) has the filter: Seccomp mode 2.
    const pasta = Number(readFileSync(n8nPaths(root, specA.id).pidFile, 'utf8'));
    const n8n = descendants(pasta).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${N8N_NODE}\0`);
      } catch {
        return false;
      }
    });
    expect(n8n.length).toBeGreaterThan(0);
    for (const pid of n8n) {
      expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^Seccomp:\s+2$/m);
    }
  }, 120_000);

  it('backs up with the encryption key: a restore brings back the workflow and a credential that decrypts', async () => {
    const session = await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword);
    const credential = await session.call('POST', '/rest/credentials', {
      name: 'Partner API',
      type: 'httpBasicAuth',
      data: { user: 'partner', password: `cred-${suffix}` },
    });
    expect(credential.status).toBe(200);
    const credentialId = (credential.json().data as { id: string }).id;
    const created = await session.call('POST', '/rest/workflows', webhookWorkflow('Keep me', 'keep', 'kept'));
    const workflowId = (created.json().data as { id: string }).id;

    const archives = await testArchives();
    const backup = await archives.dump(driver.engine('n8n').backups, specA, 'before-cleanup');
    expect(backup.parts.map((p) => p.name)).toEqual(['data.tar.gz']);
    // The editor is back after the backup (n8n was stopped for a consistent copy).
    expect((await frontDoorRequest(a.url, 'GET', '/')).status).toBe(200);

    const after = await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword);
    expect((await after.call('POST', `/rest/workflows/${workflowId}/archive`)).status).toBe(200);
    expect((await after.call('DELETE', `/rest/workflows/${workflowId}`)).status).toBe(200);
    expect((await after.call('DELETE', `/rest/credentials/${credentialId}`)).status).toBe(200);
    expect((await after.call('GET', `/rest/workflows/${workflowId}`)).status).toBe(404);

    await archives.restore(driver.engine('n8n').backups, specA, backup);
    const restored = await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword);
    const workflow = await restored.call('GET', `/rest/workflows/${workflowId}`);
    expect(workflow.status).toBe(200);
    expect(workflow.json().data).toMatchObject({ name: 'Keep me' });
    const back = await restored.call('GET', `/rest/credentials/${credentialId}?includeData=true`);
    expect(back.status).toBe(200);
    expect(back.json().data).toMatchObject({ name: 'Partner API', data: { user: 'partner' } });
    // The stored secret decrypted with the instance's key (n8n answers it blanked, not as ciphertext).
    expect(JSON.stringify(back.json().data)).not.toContain('U2FsdGVkX1');
  }, 180_000);

  it('is adoptable after an API crash: the pid file names pasta with exactly the command line supervised', async () => {
    const state = JSON.parse(readFileSync(n8nPaths(root, specA.id).stateFile, 'utf8')) as { port: number };
    const pid = Number(readFileSync(n8nPaths(root, specA.id).pidFile, 'utf8'));
    const sandbox = localN8n(
      root,
      { runtimesDir, baseDomain: 'localhost', groups: hostControlGroups('berth') },
      undefined,
      () => {},
    ).sandboxOf(specA.id);
    const line = n8nSandboxCommand(sandbox, state.port, [
      '/opt/node/bin/node',
      '--max-old-space-size=512',
      '/opt/n8n/node_modules/n8n/bin/n8n',
      'start',
    ]);
    const shown = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '');
    expect(shown).toBe(line.title);
  });

  it('a custom domain: served over HTTPS, and n8n restarted with WEBHOOK_URL on it', {
    timeout: 180_000,
  }, async () => {
    const domain = `flows-${suffix}.example.com`;
    const urls = await required(driver.engine('n8n').domains).set(specA.id, domain);
    const httpsPort = Number(new URL(urls.url).port || 443);
    expect(urls.url).toBe(`https://${domain}:${httpsPort}`);
    expect(urls.temporaryUrl).toBe(a.url);
    const page = await curl([
      '--resolve',
      `${domain}:${httpsPort}:127.0.0.1`,
      '--cacert',
      caddyPaths(root).rootCertificate,
      `${urls.url}/`,
    ]);
    expect(page.status, page.stderr).toBe(200);
    // A new certificate on request, and the domain is still served over HTTPS with it.
    const ssl = await required(driver.engine('n8n').domains).requestSsl(specA.id);
    expect(ssl).toBeTruthy();
    const reissued = await curl([
      '--resolve',
      `${domain}:${httpsPort}:127.0.0.1`,
      '--cacert',
      caddyPaths(root).rootCertificate,
      `${urls.url}/`,
    ]);
    expect(reissued.status, reissued.stderr).toBe(200);
    // n8n was restarted with the new address: the webhook URLs the editor shows follow it.
    // (the full settings, with the URLs, are for a signed-in user)
    const session = await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword);
    const settings = await session.call('GET', '/rest/settings');
    const data = settings.json().data as { urlBaseWebhook: string; urlBaseEditor: string };
    expect(data.urlBaseWebhook).toBe(`${urls.url}/`);
    expect(data.urlBaseEditor.replace(/\/$/, '')).toBe(urls.url);
    const back = await required(driver.engine('n8n').domains).set(specA.id, null);
    expect(back.url).toBe(a.url);
    const again = await (await n8nSession(a.url, specA.ownerEmail, specA.ownerPassword)).call(
      'GET',
      '/rest/settings',
    );
    expect(again.json().data).toMatchObject({ urlBaseWebhook: `${a.url}/` });
  });

  it("links a customer plants in their data folder never make root's redeploy, restart, backup or restore touch a path outside", {
    timeout: 300_000,
  }, async () => {
    // Outside the instance: a root-only folder and file the links point at.
    await mkdir(outsideDir, { mode: 0o700 });
    await writeFile(outsideFile, outsideSecret, { mode: 0o600 });
    const before = outsideSnapshot();
    planted = before;
    // Planted from inside, as the customer would (code running as the instance): links in /tmp and in
    // /data, to the outside file and folder; and the attack that once mounted the host's root into the
    // sandbox: the folder bound at /tmp (then /data/tmp) swapped for a link to /, before a restart.
    const plant = [
      `ln -s ${outsideFile} /tmp/file-link`,
      `ln -s ${outsideDir} /tmp/dir-link`,
      `ln -s ${outsideFile} /data/file-link`,
      `ln -s ${outsideDir} /data/.n8n/dir-link`,
      'mkdir -p /data/tmp && mv /data/tmp /data/tmp.old && ln -s / /data/tmp',
      'ls -la /tmp /data',
    ].join(' && ');
    const sandbox = localN8n(
      root,
      { runtimesDir, baseDomain: 'localhost', groups: hostControlGroups('berth') },
      undefined,
      () => {},
    ).sandboxOf(specB.id);
    await runInN8nSandbox(sandbox, ['/bin/sh', '-c', plant]);
    const tmpLink = path.join(n8nPaths(root, specB.id).tmpDir, 'file-link');
    expect(lstatSync(tmpLink).isSymbolicLink()).toBe(true);
    // Mail with reset links, as the server's outbox keeps it (the attack's prize).
    const outbox = path.join(root, 'outbox');
    await mkdir(outbox, { mode: 0o700 });
    await writeFile(path.join(outbox, 'reset.eml'), 'reset link', { mode: 0o600 });

    // Redeploy, then a backup and a restore (each stops and starts n8n: the restart path).
    await deployN8n(driver, specB);
    const archives = await testArchives();
    const backup = await archives.dump(driver.engine('n8n').backups, specB, 'with-links');
    await archives.restore(driver.engine('n8n').backups, specB, backup);
    expect((await frontDoorRequest(b.url, 'GET', '/')).status).toBe(200);

    // The restarted n8n sees its own two folders from its disk and no host path: /data and /tmp are
    // the disk's fixed folders (mount roots /data and /tmp of one device), and neither the host's root,
    // its outbox nor the outside file is anywhere in its view.
    // (n8n's own process, not bwrap's, whose command line names n8n too but which sees the host's mounts)
    const n8nPid = descendants(Number(readFileSync(n8nPaths(root, specB.id).pidFile, 'utf8'))).find((pid) => {
      const [program, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return program === '/opt/node/bin/node' && args.includes('/opt/n8n/node_modules/n8n/bin/n8n');
    });
    expect(n8nPid).toBeDefined();
    const mounts = readFileSync(`/proc/${n8nPid}/mountinfo`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .map((f) => ({ device: f[2], root: f[3], point: f[4] }));
    const data = mounts.find((m) => m.point === '/data');
    const tmp = mounts.find((m) => m.point === '/tmp');
    expect(data).toMatchObject({ root: '/data' });
    expect(tmp).toMatchObject({ root: '/tmp', device: data?.device });
    const view = `/proc/${n8nPid}/root`;
    for (const hidden of [
      '/tmp/etc/passwd',
      '/tmp/proc/1',
      '/etc/shadow',
      `/tmp${outbox}`,
      outbox,
      outsideFile,
    ])
      expect(existsSync(`${view}${hidden}`), hidden).toBe(false);

    // Nothing outside was chowned, chmodded, written, added to or read into the archive.
    expect(outsideSnapshot()).toEqual(before);
    const opened = await archives.vault.open('test/with-links', backup.parts);
    const chunks: Buffer[] = [];
    for await (const chunk of opened.archive.part('data.tar.gz')) chunks.push(chunk as Buffer);
    await opened.close();
    expect(gunzipSync(Buffer.concat(chunks)).includes(outsideSecret)).toBe(false);
    // The links themselves are still the customer's (root did not chown through or replace them).
    const uid = systemUser(n8nNames(specB.id).unixUser)?.uid;
    expect(lstatSync(tmpLink).uid).toBe(uid);
    expect(lstatSync(path.join(n8nPaths(root, specB.id).dataDir, 'file-link')).isSymbolicLink()).toBe(true);
  });

  it('an instance made before disks existed moves onto its own disk at its next deploy, copied by its user', {
    timeout: 180_000,
  }, async () => {
    const spec = specOf('carol');
    const names = n8nNames(spec.id);
    const paths = n8nPaths(root, spec.id);
    // The old layout: the instance's files directly in n8n/<id>, its user's, with its tmp/ inside.
    const user = await ensureSiteUser(names.unixUser, paths.mountDir);
    await mkdir(path.join(paths.mountDir, 'tmp'), { recursive: true, mode: 0o700 });
    await writeFile(path.join(paths.mountDir, 'notes.txt'), 'kept from before');
    await chown(paths.mountDir, user.uid, user.gid);
    await chown(path.join(paths.mountDir, 'tmp'), user.uid, user.gid);
    await chown(path.join(paths.mountDir, 'notes.txt'), user.uid, user.gid);
    try {
      const urls = await deployN8n(driver, spec);
      expect((await frontDoorRequest(urls.url, 'GET', '/')).status).toBe(200);
      expect(mountPoints().has(paths.mountDir)).toBe(true);
      expect(readFileSync(path.join(paths.dataDir, 'notes.txt'), 'utf8')).toBe('kept from before');
      expect(statSync(path.join(paths.dataDir, 'notes.txt')).uid).toBe(user.uid);
      expect(existsSync(`${paths.mountDir}.old`)).toBe(false);
    } finally {
      await driver.engine('n8n').delete(spec.id);
    }
    expect(existsSync(paths.mountDir)).toBe(false);
  });

  it('suspend shows the offline page; resume brings the editor back', async () => {
    await driver.engine('n8n').suspend(specB.id);
    const offline = await frontDoorRequest(b.url, 'GET', '/');
    expect(offline.status).toBe(503);
    expect(offline.text).toContain('temporarily offline');
    expect(existsSync(n8nPaths(root, specB.id).pidFile)).toBe(false);
    // An instance between its first start and its owner's setup (here: B's own n8n under another id),
    // when another instance's change reloads the front door: not routed, so nobody can claim its owner.
    const state = await readN8nState(root, specB.id);
    if (!state) throw new Error('B has no state');
    const ownerless = { ...state, id: randomUUID(), ownerReady: false, suspended: false };
    await writeN8nState(root, ownerless);
    try {
      await driver.engine('n8n').resume(specB.id);
      expect((await frontDoorRequest(b.url, 'GET', '/')).status).toBe(200);
      await n8nSession(b.url, specB.ownerEmail, specB.ownerPassword);
      const ownerlessUrl = b.url.replace(n8nNames(specB.id).slug, n8nNames(ownerless.id).slug);
      expect(ownerlessUrl).not.toBe(b.url);
      expect((await frontDoorRequest(ownerlessUrl, 'GET', '/')).status).toBe(404);
    } finally {
      await removeN8nState(root, ownerless.id);
    }
  }, 120_000);

  it('a deploy that finds n8n already owned by other credentials fails; with its own it goes on', async () => {
    // As if B's owner had been set up by someone else before the platform's call: the deploy's state
    // says no owner yet, and n8n answers "already setup" to credentials that are not its owner's.
    const state = await readN8nState(root, specB.id);
    if (!state) throw new Error('B has no state');
    await writeN8nState(root, { ...state, ownerReady: false });
    await expect(
      driver.engine('n8n').deploy({ ...specB, ownerPassword: `Other${suffix}7Z` }),
    ).rejects.toThrow(/do not sign in as it/);
    expect((await readN8nState(root, specB.id))?.ownerReady).toBe(false);
    // Its own credentials sign in as the owner: kept, and the instance is served again.
    await driver.engine('n8n').deploy(specB);
    expect((await readN8nState(root, specB.id))?.ownerReady).toBe(true);
    expect((await frontDoorRequest(b.url, 'GET', '/')).status).toBe(200);
    await n8nSession(b.url, specB.ownerEmail, specB.ownerPassword);
  }, 120_000);

  it('delete leaves nothing: process, user, data, route', async () => {
    await driver.engine('n8n').delete(specB.id);
    const paths = n8nPaths(root, specB.id);
    expect(systemUser(n8nNames(specB.id).unixUser)).toBeUndefined();
    for (const gone of [
      paths.dataDir,
      paths.mountDir,
      path.join(root, 'disks', 'n8n', `${specB.id}.img`),
      paths.etcDir,
      paths.stateFile,
      paths.pidFile,
    ])
      expect(existsSync(gone), gone).toBe(false);
    expect((await frontDoorRequest(b.url, 'GET', '/')).status).toBe(404);
    // The links B planted (test above) were not followed by the delete.
    if (planted) expect(outsideSnapshot()).toEqual(planted);
    // Deleting again is a no-op; A is untouched.
    await driver.engine('n8n').delete(specB.id);
    expect((await frontDoorRequest(a.url, 'GET', '/')).status).toBe(200);
    expect(installedN8nRuntime(runtimesDir)).toBeDefined();
  }, 120_000);
});
