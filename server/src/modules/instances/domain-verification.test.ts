import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTestServices,
  type DeployBody,
  present,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { type FakeDns, startFakeDns } from '../../../test/fake-dns.ts';
import { startTestRunner, waitForStatus } from '../../../test/instances-harness.ts';
import { createMemoryDriver } from '../../../test/provisioning/memory-driver.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';
import { ValidationError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import { PENDING_ACTIVATION } from './domain-verification.ts';

/**
 * Proof of ownership of custom domains through the API, on real PostgreSQL, the real job runner and a
 * real DNS server on 127.0.0.1 answering the TXT lookups. The driver keeps its sites in memory, and its
 * hooks record the domain changes it is asked for, hold deploys and fail a change (the real one is
 * exercised in wordpress-instances.test.ts): here the point is when Berth attaches a domain, not how a
 * site serves it.
 */

let db: Db;
let dns: FakeDns;
let app: TestApp;
let runner: JobRunner;
let services: Services;
/** Every domain change the WordPress engine was asked for, in order. */
const domainCalls: [string, string | null][] = [];
/** Deploys wait for this when set (a site still deploying). */
let deployGate: Promise<void> | undefined;
/** A domain change throws this when set. */
let domainFailure: Error | undefined;

const driver = createMemoryDriver();
driver.hooks = {
  beforeDeploy: async () => {
    await deployGate;
  },
  beforeDomain: async (id, domain) => {
    domainCalls.push([id, domain]);
    if (domainFailure) throw domainFailure;
  },
};

beforeAll(async () => {
  const testDb = await createTestDatabase();
  db = testDb.db;
  dns = await startFakeDns();
  const cipher = createEphemeralCipher();
  services = createTestServices(db, { provisioner: driver, cipher, dnsServers: [dns.server] });
  app = createApp(services);
  runner = await startTestRunner({ ...testDb, driver, cipher });
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await dns?.stop();
});

beforeEach(() => {
  dns.mode = 'answer';
  deployGate = undefined;
  domainFailure = undefined;
});

const site = {
  name: 'Shop',
  type: 'WordPress',
  title: 'Shop',
  username: 'owner',
  email: 'owner@example.com',
  password: 'a strong password',
} satisfies DeployBody;

const newDomain = () => `shop-${randomBytes(4).toString('hex')}.example.com`;

async function deploySite(token: string, extra: Partial<DeployBody> = {}) {
  const res = await call(app, 'POST', '/api/instances/deploy', { token, body: { ...site, ...extra } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.instance;
}

/** Pro allows more than the trial's one instance. */
async function grantPro(user: Record<string, unknown>) {
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', String(user.id))
    .execute();
}

async function runningSite(token: string) {
  const instance = await deploySite(token);
  return waitForStatus(app, token, instance.id, 'running');
}

const addDomain = (token: string, id: string, domain: string) =>
  call(app, 'POST', `/api/instances/${id}/domain`, { token, body: { domain } });
const verify = (token: string, id: string) =>
  call(app, 'POST', `/api/instances/${id}/domain/verify`, { token });
const get = async (token: string, id: string) =>
  (await call(app, 'GET', `/api/instances/${id}`, { token })).json.instance;

describe('custom domains need a TXT record before they are attached', { timeout: 30_000 }, () => {
  it('records a domain as pending with its TXT record, and attaches it once the record holds the token', async () => {
    const { token } = await register(app);
    const instance = await runningSite(token);
    const domain = newDomain();
    const added = await addDomain(token, instance.id, domain.toUpperCase());
    expect([added.status, added.json.message]).toEqual([200, 'Custom domain added successfully']);
    const custom = added.json.instance.customDomain;
    expect(custom).toMatchObject({
      domain,
      isActive: false,
      ssl: { status: 'Pending', message: PENDING_ACTIVATION },
      verification: {
        status: 'pending',
        record: { type: 'TXT', name: `_berth-verify.${domain}` },
        message: `No TXT record _berth-verify.${domain} found yet`,
      },
    });
    const { value } = present(custom, 'the custom domain').verification.record;
    expect(value).toMatch(/^berth-verify=[0-9a-f]{32}$/);
    // Not attached: the site stays on its temporary URL, and nothing asked the driver to serve it.
    expect(added.json.instance.url).toBe(instance.url);
    expect(domainCalls.filter(([id]) => id === instance.id)).toEqual([]);
    expect(dns.queries).toContain(`_berth-verify.${domain}`);
    const ssl = await call(app, 'GET', `/api/instances/${instance.id}/ssl`, { token });
    expect(ssl.json).toMatchObject({ status: 'Pending', ssl: { message: PENDING_ACTIVATION } });
    const reissue = await call(app, 'POST', `/api/instances/${instance.id}/ssl`, { token });
    expect(reissue.status).toBe(409);

    // A record with another value keeps it pending, and says what it found.
    dns.setTxt(`_berth-verify.${domain}`, 'berth-verify=somebody-else', 'v=spf1 -all');
    const wrong = await verify(token, instance.id);
    expect(wrong.status).toBe(200);
    expect(wrong.json.instance.customDomain?.verification).toMatchObject({
      status: 'pending',
      message: `The TXT record _berth-verify.${domain} does not hold ${value} yet (found "berth-verify=somebody-else")`,
    });
    expect(wrong.json.message).toBe(wrong.json.instance.customDomain?.verification.message);
    expect(
      Date.parse(present(wrong.json.instance.customDomain?.verification.lastChecked, 'a last check')),
    ).toBeGreaterThan(Date.now() - 10_000);
    expect(domainCalls.filter(([id]) => id === instance.id)).toEqual([]);

    // The right value among others: verified, then attached through the driver; SSL works as before.
    dns.setTxt(`_berth-verify.${domain}`, 'v=spf1 -all', value);
    const right = await verify(token, instance.id);
    expect([right.status, right.json.message]).toEqual([200, 'Domain verified and attached']);
    expect(right.json.instance).toMatchObject({
      url: `https://${domain}`,
      adminUrl: `https://${domain}/wp-admin/`,
      customDomain: { domain, verification: { status: 'attached', message: 'Verified and attached' } },
    });
    expect(domainCalls.filter(([id]) => id === instance.id)).toEqual([[instance.id, domain]]);
    const active = await call(app, 'GET', `/api/instances/${instance.id}/ssl`, { token });
    expect(active.json).toMatchObject({ status: 'Active', ssl: { message: 'HTTPS is enabled' } });
    // Attached, the domain is the site's address: `ssl.isPrimary` (the spec's public instance shape).
    expect((await get(token, instance.id)).customDomain).toMatchObject({
      isActive: true,
      ssl: { status: 'Active', isPrimary: true },
    });
    // Verifying again changes nothing.
    expect((await verify(token, instance.id)).json.instance.customDomain?.verification.status).toBe(
      'attached',
    );
    expect(domainCalls.filter(([id]) => id === instance.id)).toHaveLength(1);
  });

  it('says when the DNS lookup fails or times out, and keeps the domain pending', async () => {
    const { token } = await register(app);
    const instance = await runningSite(token);
    const domain = newDomain();
    dns.mode = 'servfail';
    const added = await addDomain(token, instance.id, domain);
    expect(added.json.instance.customDomain?.verification).toMatchObject({
      status: 'pending',
      message: `The DNS lookup of _berth-verify.${domain} failed (ESERVFAIL); it is tried again`,
    });
    dns.mode = 'silent';
    const started = Date.now();
    const slow = await verify(token, instance.id);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(slow.status).toBe(200);
    expect(slow.json.instance.customDomain?.verification.status).toBe('pending');
    expect(slow.json.instance.customDomain?.verification.message).toMatch(/^The DNS lookup of .* failed/);
  });

  it('refuses a domain another account holds with 409, on add and on deploy', async () => {
    const owner = await register(app);
    const ownerSite = await runningSite(owner.token);
    const domain = newDomain();
    const added = await addDomain(owner.token, ownerSite.id, domain);
    dns.setTxt(
      `_berth-verify.${domain}`,
      present(added.json.instance.customDomain?.verification.record.value, 'the TXT value'),
    );
    expect((await verify(owner.token, ownerSite.id)).json.instance.customDomain?.verification.status).toBe(
      'attached',
    );

    const other = await register(app);
    const otherSite = await runningSite(other.token);
    const refused = await addDomain(other.token, otherSite.id, domain);
    expect([refused.status, refused.json]).toEqual([
      409,
      { error: 'conflict', message: `The domain ${domain} is already in use by another account` },
    ]);
    const deploy = await call(app, 'POST', '/api/instances/deploy', {
      token: other.token,
      body: { ...site, domainType: 'Custom Domain', customDomain: domain },
    });
    expect([deploy.status, deploy.json.message]).toEqual([
      409,
      `The domain ${domain} is already in use by another account`,
    ]);
    expect((await get(other.token, otherSite.id)).customDomain).toBeNull();
    expect((await get(owner.token, ownerSite.id)).url).toBe(`https://${domain}`);
  });

  it('lets two accounts wait for the same domain; whoever proves it first gets it, the other gets 409', async () => {
    const squatter = await register(app);
    const squatterSite = await runningSite(squatter.token);
    const owner = await register(app);
    const ownerSite = await runningSite(owner.token);
    const domain = newDomain();
    const squat = await addDomain(squatter.token, squatterSite.id, domain);
    expect(squat.json.instance.customDomain?.verification.status).toBe('pending');
    const claim = await addDomain(owner.token, ownerSite.id, domain);
    expect(claim.status).toBe(200);
    const ownerValue = present(claim.json.instance.customDomain?.verification.record.value, 'the TXT value');
    const squatValue = present(squat.json.instance.customDomain?.verification.record.value, 'the TXT value');
    expect(ownerValue).not.toBe(squatValue);

    dns.setTxt(`_berth-verify.${domain}`, ownerValue);
    expect(
      (await verify(squatter.token, squatterSite.id)).json.instance.customDomain?.verification.status,
    ).toBe('pending');
    expect((await verify(owner.token, ownerSite.id)).json.instance.customDomain?.verification.status).toBe(
      'attached',
    );

    // The squatter manages to prove it too (both values published): refused, and shown as failed.
    dns.setTxt(`_berth-verify.${domain}`, ownerValue, squatValue);
    const late = await verify(squatter.token, squatterSite.id);
    expect([late.status, late.json.message]).toEqual([
      409,
      `The domain ${domain} is already in use by another account`,
    ]);
    expect((await get(squatter.token, squatterSite.id)).customDomain?.verification).toMatchObject({
      status: 'failed',
      message: `The domain ${domain} is already in use by another account`,
    });
    expect(domainCalls.filter(([id]) => id === squatterSite.id)).toEqual([]);
    // Removing the pending domain works.
    const removed = await call(app, 'DELETE', `/api/instances/${squatterSite.id}/domain`, {
      token: squatter.token,
    });
    expect([removed.status, removed.json.message]).toEqual([200, 'Custom domain removed successfully']);
    expect(removed.json.instance.customDomain).toBeNull();
    expect(domainCalls.filter(([id]) => id === squatterSite.id)).toEqual([]);
  });

  it('moves a domain between the same account’s instances with the same TXT record', async () => {
    const { token, user } = await register(app);
    await grantPro(user);
    const first = await runningSite(token);
    const second = await runningSite(token);
    const domain = newDomain();
    const added = await addDomain(token, first.id, domain);
    const { value } = present(added.json.instance.customDomain, 'the custom domain').verification.record;
    dns.setTxt(`_berth-verify.${domain}`, value);
    await verify(token, first.id);

    const moved = await addDomain(token, second.id, domain);
    expect(moved.status).toBe(200);
    expect(moved.json.instance).toMatchObject({
      url: `https://${domain}`,
      customDomain: { verification: { status: 'attached', record: { value } } },
    });
    const left = await get(token, first.id);
    expect(left).toMatchObject({ url: first.url, customDomain: null });
    expect(domainCalls.filter(([id]) => id === first.id || id === second.id)).toEqual([
      [first.id, domain],
      [first.id, null],
      [second.id, domain],
    ]);
  });

  it('checks pending domains in the background, attaching them, and gives up after 72 hours', async () => {
    const { token, user } = await register(app);
    await grantPro(user);
    const instance = await runningSite(token);
    const domain = newDomain();
    const added = await addDomain(token, instance.id, domain);
    dns.setTxt(
      `_berth-verify.${domain}`,
      present(added.json.instance.customDomain?.verification.record.value, 'the TXT value'),
    );
    // Checked a moment ago: not due yet.
    await services.instances.checkDueDomains();
    expect((await get(token, instance.id)).customDomain?.verification.status).toBe('pending');
    await db
      .updateTable('instances')
      .set({ domain_checked_at: new Date(Date.now() - 61_000) })
      .where('id', '=', instance.id)
      .execute();
    await services.instances.checkDueDomains();
    expect(await get(token, instance.id)).toMatchObject({
      url: `https://${domain}`,
      customDomain: { verification: { status: 'attached' } },
    });

    const stale = await runningSite(token);
    const never = newDomain();
    await addDomain(token, stale.id, never);
    await db
      .updateTable('instances')
      .set({
        domain_added_at: new Date(Date.now() - 73 * 3_600_000),
        domain_checked_at: new Date(Date.now() - 2 * 3_600_000),
      })
      .where('id', '=', stale.id)
      .execute();
    await services.instances.checkDueDomains();
    expect((await get(token, stale.id)).customDomain?.verification).toMatchObject({
      status: 'failed',
      message: `No TXT record _berth-verify.${never} found yet within 72 hours. Add the record and press Verify now.`,
    });
    // A failed domain is no longer checked in the background, but Verify now still works.
    dns.setTxt(
      `_berth-verify.${never}`,
      present((await get(token, stale.id)).customDomain?.verification.record.value, 'the TXT value'),
    );
    await services.instances.checkDueDomains();
    expect((await get(token, stale.id)).customDomain?.verification.status).toBe('failed');
    expect((await verify(token, stale.id)).json.instance.url).toBe(`https://${never}`);
  });

  it('deploys with a custom domain as pending; a domain verified while deploying is attached by the deploy', async () => {
    const { token } = await register(app);
    const domain = newDomain();
    let open = () => {};
    deployGate = new Promise((resolve) => {
      open = resolve;
    });
    const deploying = await deploySite(token, { domainType: 'Custom Domain', customDomain: domain });
    expect(deploying.customDomain?.verification).toMatchObject({ status: 'pending', lastChecked: null });
    dns.setTxt(
      `_berth-verify.${domain}`,
      present(deploying.customDomain?.verification.record.value, 'the TXT value'),
    );
    const verified = await verify(token, deploying.id);
    expect(verified.json).toMatchObject({
      message: 'Verified; the domain is attached once the site runs',
      instance: { status: 'deploying', url: null, customDomain: { verification: { status: 'verified' } } },
    });
    open();
    const running = await waitForStatus(app, token, deploying.id, 'running');
    expect(running).toMatchObject({
      url: `https://${domain}`,
      customDomain: { verification: { status: 'attached' } },
    });
  });

  it('retries attaching after a driver failure, and shows a refusal by the driver as failed', async () => {
    const { token, user } = await register(app);
    await grantPro(user);
    const instance = await runningSite(token);
    const domain = newDomain();
    domainFailure = new Error('Caddy did not answer');
    const added = await addDomain(token, instance.id, domain);
    dns.setTxt(
      `_berth-verify.${domain}`,
      present(added.json.instance.customDomain?.verification.record.value, 'the TXT value'),
    );
    const verified = await verify(token, instance.id);
    expect(verified.json.instance).toMatchObject({
      url: instance.url,
      customDomain: {
        verification: {
          status: 'verified',
          message: 'Verified; attaching failed (Caddy did not answer), it is tried again',
        },
      },
    });
    domainFailure = undefined;
    await db
      .updateTable('instances')
      .set({ domain_checked_at: new Date(Date.now() - 61_000) })
      .where('id', '=', instance.id)
      .execute();
    await services.instances.checkDueDomains();
    expect((await get(token, instance.id)).url).toBe(`https://${domain}`);

    const other = await runningSite(token);
    const own = `own-${randomBytes(3).toString('hex')}.localhost`;
    const refused = await addDomain(token, other.id, own);
    dns.setTxt(
      `_berth-verify.${own}`,
      present(refused.json.instance.customDomain?.verification.record.value, 'the TXT value'),
    );
    domainFailure = new ValidationError("Domains under localhost are the platform's own addresses");
    const final = await verify(token, other.id);
    expect(final.json.instance.customDomain?.verification).toMatchObject({
      status: 'failed',
      message: "Domains under localhost are the platform's own addresses",
    });
  });

  it('answers 404 to another user, 400 without a domain, and refuses bad input', async () => {
    const { token } = await register(app);
    const instance = await runningSite(token);
    const stranger = await register(app);
    const res = await verify(stranger.token, instance.id);
    expect([res.status, res.json.message]).toEqual([404, 'Instance not found']);
    expect((await verify(stranger.token, 'not-a-uuid')).status).toBe(404);
    const none = await verify(token, instance.id);
    expect([none.status, none.json]).toEqual([
      400,
      { error: 'validation_error', message: 'The instance has no custom domain' },
    ]);
    const bad = await addDomain(token, instance.id, '_berth-verify.example.com');
    expect([bad.status, bad.json.message]).toEqual([400, 'Please enter a valid domain name']);
    const unauthenticated = await call(app, 'POST', `/api/instances/${instance.id}/domain/verify`);
    expect(unauthenticated.status).toBe(401);
  });
});
