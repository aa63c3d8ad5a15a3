import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { JobRunner } from '../../src/jobs/job-runner.ts';
import { createEphemeralCipher } from '../../src/lib/crypto.ts';
import { offerOf } from '../../src/modules/instances/instance-features.ts';
import { resourcesOf } from '../../src/modules/instances/instance-resources.ts';
import type { Instance } from '../../src/modules/instances/instances.schemas.ts';
import type { InstanceEngine } from '../../src/provisioning/engine.ts';
import {
  type Feature,
  INSTANCE_TYPES,
  type InstanceType,
  TYPE_FEATURES,
} from '../../src/provisioning/instance-types.ts';
import type { Services } from '../../src/services.ts';
import {
  answerOf,
  type BodyOf,
  call,
  createTestServices,
  type DeployBody,
  type Method,
  present,
  register,
  type TestApp,
} from '../create-test-app.ts';
import { type FakeDns, startFakeDns } from '../fake-dns.ts';
import { startTestRunner, waitFor } from '../instances-harness.ts';
import { runCommand } from '../provisioning/site-clients.ts';
import { testArchives } from '../provisioning/test-archives.ts';
import { createTestDatabase, type TestDatabase } from '../test-db.ts';
import {
  type AccessDatabase,
  type ClientContext,
  clientOf,
  fetchPage,
  type InstanceClient,
  phpMyAdminSignIn,
  type Reachable,
  readLocal,
  type SftpLogin,
  sftp,
  sql,
} from './clients.ts';
import type { ContractHarness, DriverUnderTest } from './harness.ts';
import { type Cell, contractResults, rowsOf } from './results.ts';

/**
 * The driver contract: written once, run against every driver (local-contract.test.ts, and the swarm's
 * beside it). For every instance type it goes through the API as a customer would and checks the result
 * with the customer's real clients: the type deploys (or the API refuses it with the customer's reason),
 * runs within what was sold, and every feature of its type (instance-types.ts TYPE_FEATURES) either
 * works or is declared unavailable by the driver's engine, with a reason the API answers on each of its
 * endpoints (409) and in the instance's `features`. Then the tenant-isolation attacks that apply,
 * suspension, resumption and a delete that leaves nothing behind. One instance per type (SQL types get
 * a neighbour of another customer, for the isolation attacks), deployed at once, each check in turn
 * on it. At the end one table, capability × type: ✓, "unavailable: <reason>" or ✗ (the suite fails on
 * ✗), printed and written to .vitest-results/contract-<label>.md.
 */

const MIB = 1024 * 1024;
/** What each type is sold with (n8n's least is 1GB and half a core). */
const SOLD: Record<InstanceType, Required<Pick<DeployBody, 'memory' | 'cpu'>>> = {
  mysql: { memory: '512MB', cpu: '0.5' },
  postgresql: { memory: '512MB', cpu: '0.5' },
  mongodb: { memory: '512MB', cpu: '0.5' },
  wordpress: { memory: '512MB', cpu: '0.5' },
  n8n: { memory: '1GB', cpu: '0.5' },
};
/** How long each type may take to deploy (n8n's first start migrates its database). */
const DEPLOY_MS: Record<InstanceType, number> = {
  mysql: 180_000,
  postgresql: 180_000,
  mongodb: 180_000,
  wordpress: 300_000,
  n8n: 480_000,
};
const SQL_TYPES = ['mysql', 'postgresql'] as const;
type SqlType = (typeof SQL_TYPES)[number];
const isSql = (type: InstanceType): type is SqlType => (SQL_TYPES as readonly string[]).includes(type);
const NO_BACKUP = 'b-000000000000';

/** The capability object each feature comes with (engine.ts: `true` only with it, and it only with `true`). */
const CAPABILITY_OBJECT: Partial<Record<Feature, keyof InstanceEngine>> = {
  password: 'password',
  domains: 'domains',
  backups: 'backups',
  storage: 'storage',
};

/** Every route of a feature, after /api/instances/{id}/: what must answer 409 with its reason. */
const FEATURE_ROUTES: Record<Feature, readonly (readonly [Method, string, unknown?])[]> = {
  password: [['POST', 'password', { password: 'Contract-Password-2026' }]],
  domains: [
    ['POST', 'domain', { domain: 'refused.example.com' }],
    ['GET', 'ssl'],
    ['POST', 'ssl'],
  ],
  storage: [['GET', 'storage']],
  usage: [['GET', 'usage?range=1h']],
  backups: [
    ['GET', 'backups'],
    ['POST', 'backups/new', { name: 'Refused' }],
    ['POST', `backups/${NO_BACKUP}/restore`],
    ['DELETE', `backups/${NO_BACKUP}`],
    ['POST', `backups/${NO_BACKUP}/download`],
  ],
  // Parts of GET /access: null, with the reason in the instance's `features`.
  sftp: [],
  databaseAdmin: [],
};

/** Every route of an instance: another customer gets 404 on each. */
const INSTANCE_ROUTES: readonly (readonly [Method, string, unknown?])[] = [
  ['GET', ''],
  ['PUT', '', { name: 'Mine now' }],
  ['DELETE', ''],
  ['GET', '/access'],
  ['POST', '/password', { type: 'MySQL', password: 'Contract-Password-2026' }],
  ['GET', '/storage'],
  ['GET', '/usage?range=1h'],
  ['GET', '/backups'],
  ['POST', '/backups/new', { name: 'Mine' }],
  ['POST', `/backups/${NO_BACKUP}/restore`],
  ['DELETE', `/backups/${NO_BACKUP}`],
  ['POST', `/backups/${NO_BACKUP}/download`],
  ['POST', '/domain', { domain: 'stolen.example.com' }],
  ['POST', '/domain/verify'],
  ['DELETE', '/domain'],
  ['GET', '/ssl'],
  ['POST', '/ssl'],
];

/** The platform around the driver: database, API, jobs, backups, DNS; the same for every driver. */
interface Platform {
  under: DriverUnderTest;
  database: TestDatabase;
  services: Services;
  /** The daily schedule, with a clock at the end of today: every instance's backup time has passed. */
  schedule: Services['backupSchedule'];
  app: TestApp;
  runner: JobRunner;
  dns: FakeDns;
  ctx: ClientContext;
}

interface Deployed {
  kind: 'deployed';
  id: string;
  instance: Instance;
  reach: Reachable;
  client: InstanceClient;
  /** SQL types: another customer's instance of the same type, for the isolation attacks. */
  neighbour?: { id: string; database: AccessDatabase };
  /** The SFTP login (WordPress, where offered). */
  sftp?: SftpLogin;
  /** The marks written so far that must survive (suspend, resume). */
  kept: string[];
}
type TypeState =
  | { kind: 'unavailable'; reason: string }
  | { kind: 'deploying'; id: string; neighbour?: string }
  | { kind: 'failed'; why: string }
  | Deployed;

/** Registers the contract's describes for the driver `harness` starts. */
export function describeDriverContract(harness: ContractHarness): void {
  const results = contractResults(harness.label);
  const states = new Map<InstanceType, TypeState>();
  const suffix = randomBytes(3).toString('hex');
  let p: Platform;
  let owner: { token: string; userId: string };
  let stranger: { token: string };
  let neighbour: { token: string };
  const started = performance.now();
  /** The job runner's lines: a failed job's reference and its cause. */
  const jobLog: string[] = [];

  const api = <M extends Method, const P extends string>(
    method: M,
    route: P,
    body?: BodyOf<M, P>,
    token = owner.token,
  ) => call(p.app, method, route, { token, body });

  /** A route written at run time, answered as the error shape every route shares (or its success). */
  async function raw(method: Method, route: string, body: unknown, token: string) {
    const res = await p.app.request(route, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return answerOf<Method, '/not-in-the-contract'>(res).then((answer) => ({
      status: answer.status,
      json: answer.json as { error?: string; message?: string; details?: Record<string, unknown> },
    }));
  }

  /** Waits for the instance's `status`; fails at once on `error`, with the reason and the driver's log. */
  async function waitForState(id: string, status: string, timeoutMs: number, token = owner.token) {
    let last: Instance | undefined;
    return waitFor(
      async () => {
        const res = await call(p.app, 'GET', `/api/instances/${id}`, { token });
        last = res.json.instance;
        if (last?.status === 'error' && status !== 'error')
          throw new Error(
            `the instance failed: ${last.statusMessage}\n${jobLog.slice(-10).join('\n')}\n${p.under.log().slice(-6000)}`,
          );
        return last?.status === status ? last : undefined;
      },
      { timeoutMs, what: `instance ${id} to be ${status} (last ${last?.status})` },
    );
  }

  async function accessOf(id: string, token = owner.token) {
    const res = await call(p.app, 'GET', `/api/instances/${id}/access`, { token });
    if (res.status !== 200 || !('database' in res.json))
      throw new Error(`/access answered ${res.status}: ${JSON.stringify(res.json)}`);
    return res.json;
  }

  function deployBody(type: InstanceType) {
    const base = { name: `contract ${type}`, type, region: p.under.region, ...SOLD[type] };
    if (type === 'wordpress')
      return {
        ...base,
        title: `Contract ${suffix}`,
        username: 'captain',
        email: 'captain@example.com',
        password: `Contract pass ${suffix}`,
      } satisfies DeployBody;
    if (type === 'n8n')
      return {
        ...base,
        email: `owner-${suffix}@example.com`,
        password: `Contract${suffix}7`,
      } satisfies DeployBody;
    return base satisfies DeployBody;
  }

  /** The instance of the type, deployed; throws for one that is not (its row reads ✗). */
  function deployedOf(type: InstanceType): Deployed {
    const state = states.get(type);
    if (state?.kind === 'deployed') return state;
    throw new Error(`${type} was not deployed: ${state?.kind === 'failed' ? state.why : state?.kind}`);
  }

  /**
   * One row of the table: an `it` per type that has it. A type the driver cannot run reads
   * "unavailable" with its reason; otherwise `check` runs on its instance and its answer (a Cell) or
   * failure is recorded.
   */
  function row(
    name: string,
    check: (type: InstanceType, d: Deployed) => Promise<Cell | undefined>,
    timeout = 120_000,
  ) {
    describe(name, () => {
      for (const type of INSTANCE_TYPES) {
        if (!rowsOf(type).includes(name)) continue;
        it(type, { timeout }, async () => {
          const state = states.get(type);
          if (state?.kind === 'unavailable') {
            results.record(type, name, { kind: 'unavailable', reason: state.reason });
            return;
          }
          try {
            results.record(type, name, (await check(type, deployedOf(type))) ?? { kind: 'pass' });
          } catch (error) {
            results.record(type, name, { kind: 'fail', why: (error as Error).message });
            throw error;
          }
        });
      }
    });
  }

  /**
   * A feature's row: the instance's `features` must say what the engine declares; where it is offered
   * `check` runs, where not every endpoint of it answers 409 with the engine's reason.
   */
  function feature(
    name: Feature,
    check: (type: InstanceType, d: Deployed) => Promise<void>,
    timeout?: number,
  ) {
    row(
      name,
      async (type, d) => {
        const declared = offerOf(p.under.driver.engine(type), name);
        const shown = (await api('GET', `/api/instances/${d.id}`)).json.instance?.features[name];
        expect(shown, 'the instance’s features as the API answers them').toEqual(
          declared === true ? { available: true, reason: null } : { available: false, reason: declared },
        );
        if (declared === true) {
          await check(type, d);
          return { kind: 'pass' };
        }
        expect(declared.trim(), 'a reason in the customer’s words').not.toBe('');
        for (const [method, route, body] of FEATURE_ROUTES[name]) {
          const res = await raw(method, `/api/instances/${d.id}/${route}`, withType(type, body), owner.token);
          expect([res.status, res.json.message, res.json.details?.reason], `${method} ${route}`).toEqual([
            409,
            declared,
            declared,
          ]);
        }
        const access = await accessOfType(type, d.id);
        if (name === 'sftp') expect(access?.sftp ?? null).toBeNull();
        if (name === 'databaseAdmin') expect(access?.database?.phpmyadmin ?? null).toBeNull();
        return { kind: 'unavailable', reason: declared };
      },
      timeout,
    );
  }

  const withType = (type: InstanceType, body: unknown) =>
    body && typeof body === 'object' && 'password' in body ? { ...body, type } : body;

  /** /access of an instance whose type has credentials (not n8n). */
  const accessOfType = (type: InstanceType, id: string) => (type === 'n8n' ? undefined : accessOf(id));

  describe(`driver contract: ${harness.label}`, () => {
    beforeAll(async () => {
      const under = await harness.start();
      try {
        const database = await createTestDatabase();
        const cipher = createEphemeralCipher();
        const { vault } = await testArchives();
        const dns = await startFakeDns();
        const config = { provisioner: under.driver, cipher, backupVault: vault, dnsServers: [dns.server] };
        const services = createTestServices(database.db, config);
        const endOfToday = new Date(`${new Date().toISOString().slice(0, 10)}T23:59:59.000Z`);
        const schedule = createTestServices(database.db, { ...config, now: () => endOfToday }).backupSchedule;
        const app = createApp(services);
        const runner = await startTestRunner({
          ...database,
          driver: under.driver,
          cipher,
          vault,
          log: jobLog,
        });
        const work = await mkdtemp('/tmp/berth-contract-');
        p = {
          under,
          database,
          services,
          schedule,
          app,
          runner,
          dns,
          ctx: { work, frontDoor: under.frontDoor },
        };
      } catch (error) {
        await under.stop();
        throw error;
      }
      const pro = async () => {
        const account = await register(p.app);
        await p.database.db
          .updateTable('subscriptions')
          .set({ plan: 'pro', status: 'active', current_period_end: null })
          .where('user_id', '=', String(account.user.id))
          .execute();
        return { token: account.token, userId: String(account.user.id) };
      };
      owner = await pro();
      stranger = await pro();
      neighbour = await pro();

      // Every type the driver offers is deployed at once (its jobs run side by side); SQL types get a
      // neighbour of another customer.
      const capabilities = await api('GET', '/api/instances/capabilities');
      for (const type of INSTANCE_TYPES) {
        const capability = capabilities.json.types.find((t) => t.type === type);
        if (!capability?.available) {
          states.set(type, { kind: 'unavailable', reason: capability?.reason ?? 'not in the capabilities' });
          continue;
        }
        const res = await api('POST', '/api/instances/deploy', deployBody(type));
        if (res.status !== 202) {
          states.set(type, {
            kind: 'failed',
            why: `deploy answered ${res.status}: ${JSON.stringify(res.json)}`,
          });
          continue;
        }
        let neighbourId: string | undefined;
        if (isSql(type)) {
          const other = await api('POST', '/api/instances/deploy', deployBody(type), neighbour.token);
          neighbourId = other.json.instance?.id;
        }
        states.set(type, { kind: 'deploying', id: res.json.instance.id, neighbour: neighbourId });
      }
    }, 900_000);

    afterAll(async () => {
      const table = results.table();
      const file = results.write();
      const minutes = ((performance.now() - started) / 60_000).toFixed(1);
      console.log(`\nDriver contract (${harness.label}), ${minutes} min, written to ${file}:\n\n${table}\n`);
      await p?.runner.stop();
      await p?.dns.stop();
      await p?.under.stop();
      if (p?.ctx.work) await rm(p.ctx.work, { recursive: true, force: true });
    }, 300_000);

    describe('declared', () => {
      for (const type of INSTANCE_TYPES)
        it(type, () => {
          try {
            const engine = p.under.driver.engine(type);
            expect(Object.keys(engine.features).sort(), 'exactly the features of its type').toEqual(
              [...TYPE_FEATURES[type]].sort(),
            );
            for (const [name, offer] of Object.entries(engine.features)) {
              expect(offer === true || (typeof offer === 'string' && offer.trim() !== ''), name).toBe(true);
              const object = CAPABILITY_OBJECT[name as Feature];
              if (object)
                expect(
                  engine[object] !== undefined,
                  `${name}: true comes with engine.${object}, and only with it`,
                ).toBe(offer === true);
            }
            results.record(type, 'declared', { kind: 'pass' });
          } catch (error) {
            results.record(type, 'declared', { kind: 'fail', why: (error as Error).message });
            throw error;
          }
        });
    });

    describe('deploy', () => {
      for (const type of INSTANCE_TYPES)
        it(type, { timeout: DEPLOY_MS[type] + 60_000 }, async () => {
          const state = states.get(type);
          try {
            if (state?.kind === 'unavailable') {
              // The API refuses it with the same reason, in the customer's words.
              const res = await api('POST', '/api/instances/deploy', deployBody(type));
              expect([res.status, res.json.message, res.json.details?.reason]).toEqual([
                409,
                state.reason,
                state.reason,
              ]);
              results.record(type, 'deploy', { kind: 'unavailable', reason: state.reason });
              return;
            }
            if (state?.kind !== 'deploying')
              throw new Error(state?.kind === 'failed' ? state.why : 'not deployed');
            const instance = await waitForState(state.id, 'running', DEPLOY_MS[type]);
            const body = deployBody(type);
            const access = await accessOfType(type, state.id);
            const reach: Reachable = {
              type,
              url: instance.url,
              database: access?.database ?? null,
              ...(type === 'wordpress' &&
                'title' in body && {
                  site: { user: body.username, password: body.password, title: body.title },
                }),
              ...(type === 'n8n' &&
                'email' in body && { owner: { email: body.email, password: body.password } }),
            };
            const client = await clientOf(p.ctx, reach, state.id);
            await client.works();
            // A site's database is shown only where the customer can reach it (no internal host names).
            if (type === 'wordpress' && reach.database) {
              const login = await sql(p.ctx, 'mysql', reach.database, 'SELECT 1');
              expect(
                login.stdout.trim(),
                `the site's database at ${reach.database.host}: ${login.stderr}`,
              ).toBe('1');
            }
            let neighbourOf: Deployed['neighbour'];
            if (state.neighbour) {
              await waitForState(state.neighbour, 'running', DEPLOY_MS[type], neighbour.token);
              neighbourOf = {
                id: state.neighbour,
                database: present((await accessOf(state.neighbour, neighbour.token)).database, 'credentials'),
              };
            }
            states.set(type, {
              kind: 'deployed',
              id: state.id,
              instance,
              reach,
              client,
              neighbour: neighbourOf,
              sftp: access?.sftp
                ? {
                    host: access.sftp.ipAddress,
                    port: access.sftp.port,
                    user: access.sftp.user,
                    password: access.sftp.password,
                  }
                : undefined,
              kept: [],
            });
            results.record(type, 'deploy', { kind: 'pass' });
          } catch (error) {
            if (state?.kind === 'deploying')
              states.set(type, { kind: 'failed', why: (error as Error).message });
            results.record(type, 'deploy', { kind: 'fail', why: (error as Error).message });
            throw error;
          }
        });
    });

    row('limits', async (type, d) => {
      const sold = SOLD[type];
      expect(d.instance.deploymentConfig).toMatchObject(sold);
      const resources = resourcesOf(sold.memory, sold.cpu);
      if (!resources) throw new Error(`no resources in ${JSON.stringify(sold)}`);
      let applied: { memoryBytes: number | null; cpus: number | null };
      if (offerOf(p.under.driver.engine(type), 'usage') === true) {
        const report = await usageReport(d);
        applied = { memoryBytes: report.summary.memory.limit, cpus: report.cpuLimit };
      } else if (p.under.appliedLimits) {
        applied = await p.under.appliedLimits(d.id, type);
      } else {
        throw new Error('the driver measures no usage and its harness reads no limits');
      }
      expect(applied.memoryBytes ?? applied.cpus, 'a limit the driver applies').not.toBeNull();
      if (applied.memoryBytes !== null) expect(applied.memoryBytes).toBe(resources.memoryMb * MIB);
      if (applied.cpus !== null) expect(applied.cpus).toBe(resources.cpus);
      return undefined;
    });

    /** Samples every instance now, then reads the instance's last hour as its Usage tab does. */
    async function usageReport(d: Deployed) {
      return waitFor(
        async () => {
          await p.services.usage.collect();
          const res = await api('GET', `/api/instances/${d.id}/usage?range=1h`);
          expect(res.status, JSON.stringify(res.json)).toBe(200);
          return res.json.points.length > 0 ? res.json : undefined;
        },
        { timeoutMs: 60_000, what: `usage samples of ${d.id}` },
      );
    }

    feature('password', async (type, d) => {
      const database = d.reach.database;
      if (!database) throw new Error('no credentials');
      const old = database.password;
      const next = `Contract-${suffix}-changed`;
      const res = await api('POST', `/api/instances/${d.id}/password`, { type, password: next });
      expect([res.status, res.json.message], JSON.stringify(res.json)).toEqual([
        200,
        `${d.instance.type} password updated`,
      ]);
      d.reach.database = (await accessOf(d.id)).database;
      expect(d.reach.database?.password).toBe(next);
      await d.client.works();
      if (isSql(type)) {
        const refused = await sql(p.ctx, type, database, 'SELECT 1', { password: old });
        expect(refused.code, 'the old password no longer works').not.toBe(0);
      }
    });

    feature('storage', async (type, d) => {
      const res = await api('GET', `/api/instances/${d.id}/storage`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.usedBytes).toBeGreaterThan(0);
      expect(res.json.usedBytes).toBeLessThan(res.json.limitBytes);
      const sizeMb = p.under.diskMb[type];
      if (sizeMb) {
        // The disk it was given, give or take its file system's overhead and the slack a driver keeps.
        const given = `the ${sizeMb} MiB disk it was given`;
        expect(res.json.limitBytes, given).toBeGreaterThanOrEqual(sizeMb * MIB * 0.9);
        expect(res.json.limitBytes, given).toBeLessThanOrEqual(sizeMb * MIB * 1.1);
      }
    });

    feature('usage', async (_type, d) => {
      const report = await usageReport(d);
      expect(report.measured).toBe(true);
      const { cpu, memory, disk } = report.summary;
      expect(
        [cpu.current, memory.current, disk.used].some((value) => value !== null),
        'a measured figure',
      ).toBe(true);
    });

    feature('sftp', async (_type, d) => {
      if (!d.sftp) throw new Error('/access has no SFTP login');
      const content = `sftp ${suffix}\n`;
      const session = await sftp(
        p.ctx,
        d.sftp,
        [
          `-mkdir ${p.under.siteFile('/wp-content/uploads')}`,
          `put upload.txt ${p.under.siteFile('/wp-content/uploads/contract.txt')}`,
          `get ${p.under.siteFile('/wp-content/uploads/contract.txt')} back.txt`,
        ],
        `sftp-${d.id}`,
        { 'upload.txt': content },
      );
      expect(session.code, session.stderr).toBe(0);
      expect(await readLocal(path.join(session.local, 'back.txt'))).toBe(content);
      const served = await fetchPage(p.ctx, `${d.reach.url}/wp-content/uploads/contract.txt`);
      expect([served.status, served.body]).toEqual([200, content]);
      const wrong = await sftp(p.ctx, { ...d.sftp, password: 'wrong-password' }, ['pwd'], `sftp-${d.id}`);
      expect(wrong.code, 'a wrong password is refused').not.toBe(0);
    });

    feature(
      'domains',
      async (type, d) => {
        const domain = `${type}-${suffix}.example.com`;
        const added = await api('POST', `/api/instances/${d.id}/domain`, { domain });
        expect(added.status, JSON.stringify(added.json)).toBe(200);
        const record = added.json.instance.customDomain?.verification.record;
        if (!record) throw new Error('no TXT record to add');
        p.dns.setTxt(record.name, record.value);
        const verified = await api('POST', `/api/instances/${d.id}/domain/verify`);
        expect([verified.status, verified.json.message], JSON.stringify(verified.json)).toEqual([
          200,
          'Domain verified and attached',
        ]);
        const url = verified.json.instance.url ?? '';
        expect(url).toMatch(new RegExp(`^https://${domain.replaceAll('.', '\\.')}(:\\d+)?$`));
        await waitFor(
          async () => {
            const ssl = await api('GET', `/api/instances/${d.id}/ssl`);
            return ssl.json.status === 'Active' ? true : undefined;
          },
          { timeoutMs: 90_000, what: `the certificate of ${domain}` },
        );
        const secure = await fetchPage(p.ctx, `${url}/`, await p.under.domainCa());
        expect(secure.status, secure.stderr).toBe(200);
        expect(secure.body).toContain(type === 'wordpress' ? `<title>Contract ${suffix}` : 'n8n');
        // The temporary URL keeps working; removing the domain brings it back as the address.
        const removed = await api('DELETE', `/api/instances/${d.id}/domain`);
        expect(removed.status, JSON.stringify(removed.json)).toBe(200);
        d.reach.url = removed.json.instance.url;
        expect(d.reach.url).toBe(d.instance.url);
        await d.client.works();
      },
      300_000,
    );

    feature('databaseAdmin', async (type, d) => {
      const access = await accessOf(d.id);
      const link = access.database?.phpmyadmin;
      if (!access.database || !link) throw new Error(`${type}: /access has no phpMyAdmin link`);
      await phpMyAdminSignIn(p.ctx, link, access.database, path.join(p.ctx.work, `pma-${d.id}.jar`));
    });

    describe('backups: the daily schedule', () => {
      beforeAll(async () => {
        // Every instance whose time of day has passed (all of them, at the end of the day) is due.
        await p.schedule.scheduleDue();
      });
      feature(
        'backups',
        async (_type, d) => {
          const scheduled = await waitFor(
            async () => {
              const list = await api('GET', `/api/instances/${d.id}/backups`);
              const found = Array.isArray(list.json)
                ? list.json.find((b) => b.kind === 'scheduled')
                : undefined;
              return found && found.status !== 'running' ? found : undefined;
            },
            { timeoutMs: 180_000, what: `the scheduled backup of ${d.id}` },
          );
          expect(scheduled.status, scheduled.error ?? '').toBe('complete');

          const kept = `kept-${suffix}`;
          const dropped = `dropped-${suffix}`;
          await d.client.mark(kept);
          d.kept.push(kept);
          const created = await api('POST', `/api/instances/${d.id}/backups/new`, { name: 'Contract' });
          expect(created.status, JSON.stringify(created.json)).toBe(201);
          const backupId = created.json.id;
          const backup = await waitFor(
            async () => {
              const list = await api('GET', `/api/instances/${d.id}/backups`);
              const found = Array.isArray(list.json) ? list.json.find((b) => b.id === backupId) : undefined;
              return found && found.status !== 'running' ? found : undefined;
            },
            { timeoutMs: 240_000, what: `backup ${backupId}` },
          );
          expect(backup.status, backup.error ?? '').toBe('complete');

          // The download: a link, then the tar of its parts.
          const link = await api('POST', `/api/instances/${d.id}/backups/${backupId}/download`);
          expect(link.status, JSON.stringify(link.json)).toBe(200);
          const download = await p.app.request(new URL(link.json.url).pathname);
          expect(download.status).toBe(200);
          expect(download.headers.get('content-type')).toBe('application/x-tar');
          const tar = path.join(p.ctx.work, `${backupId}.tar`);
          await writeFile(tar, Buffer.from(await download.arrayBuffer()));
          const listed = await runCommand('/usr/bin/tar', ['-tf', tar]);
          expect(listed.code, listed.stderr).toBe(0);
          expect(listed.stdout.trim().split('\n').length).toBeGreaterThan(0);

          // Exact restore: what was written after the backup is gone, what was before is back.
          await d.client.mark(dropped);
          expect(await d.client.marks()).toContain(dropped);
          const restored = await api('POST', `/api/instances/${d.id}/backups/${backupId}/restore`);
          expect([restored.status, restored.json.message], JSON.stringify(restored.json)).toEqual([
            202,
            'Restore initiated',
          ]);
          await waitFor(
            async () => {
              const now = (await api('GET', `/api/instances/${d.id}`)).json.instance;
              if (now?.status === 'error') throw new Error(`the restore failed: ${now.statusMessage}`);
              return now?.status === 'running' ? true : undefined;
            },
            { timeoutMs: 240_000, what: `the restore of ${d.id}` },
          );
          await d.client.works();
          const marks = await d.client.marks();
          expect(marks).toContain(kept);
          expect(marks).not.toContain(dropped);
        },
        600_000,
      );
    });

    row('isolation', async (type, d) => {
      // Another customer learns nothing of the instance: 404 on every route, as for a missing one.
      for (const [method, route, body] of INSTANCE_ROUTES) {
        const res = await raw(method, `/api/instances/${d.id}${route}`, body, stranger.token);
        expect([res.status, res.json.message], `${method} ${route}`).toEqual([404, 'Instance not found']);
      }
      const others = [...states.values()].flatMap((state) =>
        state.kind === 'deployed' && state.id !== d.id
          ? [
              state.id,
              state.id.replaceAll('-', '').slice(0, 12),
              ...(state.neighbour ? [state.neighbour.id] : []),
            ]
          : [],
      );
      // A site's SFTP login stays in its own folder: nothing of the server or of other tenants.
      if (d.sftp && offerOf(p.under.driver.engine(type), 'sftp') === true) {
        const attempts = [
          'pwd',
          'ls -la /',
          '-cd ..',
          '-cd ..',
          'ls -la',
          '-get /etc/shadow shadow',
          ...p.under.privatePaths.flatMap((target, i) => [
            `-get ${target} leak-${i}`,
            `-get -r ${target} leak-dir-${i}`,
          ]),
        ];
        const escaping = await sftp(p.ctx, d.sftp, attempts, `escape-${d.id}`);
        expect(escaping.code, escaping.stderr).toBe(0);
        const shadow = path.join(escaping.local, 'shadow');
        if (existsSync(shadow)) expect(await readLocal(shadow)).not.toMatch(/^root:/m);
        p.under.privatePaths.forEach((target, i) => {
          expect(existsSync(path.join(escaping.local, `leak-${i}`)), target).toBe(false);
          expect(existsSync(path.join(escaping.local, `leak-dir-${i}`)), target).toBe(false);
        });
        for (const other of others)
          expect(escaping.stdout, 'another tenant in the listing').not.toContain(other);
      }
      // A database login reads its own database only: not another tenant's, on its server or theirs.
      const family = type === 'postgresql' ? 'postgresql' : 'mysql';
      const logins = sqlLogins().filter((login) => login.family === family);
      const attacker = logins.find((login) => login.id === d.id);
      if (attacker) {
        for (const target of logins) {
          if (target.id === attacker.id) continue;
          for (const at of [undefined, { host: target.database.host, port: target.database.port }]) {
            const attempt = await sql(p.ctx, family, attacker.database, 'SELECT 1', {
              database: target.database.name,
              at,
            });
            expect(
              attempt.code,
              `${attacker.id} into ${target.database.name} at ${JSON.stringify(at ?? 'its own server')}`,
            ).not.toBe(0);
          }
        }
      }
      return undefined;
    });

    /** Every SQL login the contract holds that works on its own database (a site's may be unreachable). */
    function sqlLogins() {
      return [...states.values()].flatMap((state) => {
        if (state.kind !== 'deployed' || !state.reach.database) return [];
        const family = state.reach.type === 'postgresql' ? ('postgresql' as const) : ('mysql' as const);
        return [
          { id: state.id, family, database: state.reach.database },
          ...(state.neighbour
            ? [{ id: state.neighbour.id, family, database: state.neighbour.database }]
            : []),
        ];
      });
    }

    describe('when the subscription lapses', () => {
      beforeAll(async () => {
        await p.services.subscriptions.suspendInstancesOf(owner.userId);
      });
      row(
        'suspend',
        async (_type, d) => {
          await waitForState(d.id, 'suspended', 180_000);
          expect(await d.client.refused(), 'the customer’s client is turned away').toBe(true);
          if (d.sftp) expect((await sftp(p.ctx, d.sftp, ['pwd'], `sftp-${d.id}`)).code).not.toBe(0);
          return undefined;
        },
        240_000,
      );
    });

    describe('when it is paid again', () => {
      beforeAll(async () => {
        await p.services.subscriptions.resumeInstancesOf(owner.userId);
      });
      row(
        'resume',
        async (_type, d) => {
          await waitForState(d.id, 'running', 300_000);
          await waitFor(async () => ((await d.client.refused()) ? undefined : true), {
            timeoutMs: 60_000,
            what: 'the client to be let in again',
          });
          await d.client.works();
          const marks = await d.client.marks();
          for (const mark of d.kept) expect(marks, 'its data kept').toContain(mark);
          return undefined;
        },
        360_000,
      );
    });

    row(
      'delete',
      async (type, d) => {
        const ids = [d.id, ...(d.neighbour ? [d.neighbour.id] : [])];
        for (const id of ids) {
          const token = id === d.id ? owner.token : neighbour.token;
          const res = await call(p.app, 'DELETE', `/api/instances/${id}`, { token });
          expect(res.status, JSON.stringify(res.json)).toBe(202);
        }
        for (const id of ids) {
          const token = id === d.id ? owner.token : neighbour.token;
          await waitFor(
            async () =>
              (await call(p.app, 'GET', `/api/instances/${id}`, { token })).status === 404 ? true : undefined,
            { timeoutMs: 180_000, what: `instance ${id} to be gone` },
          );
        }
        expect(await d.client.refused(), 'the customer’s client finds nothing').toBe(true);
        for (const id of ids) {
          // The delete job has ended: what a driver removes after it (a disk's unmount) gets a moment.
          let left: string[] = [];
          for (let tries = 0; tries < 10; tries += 1) {
            left = await p.under.leftovers(id, type);
            if (left.length === 0) break;
            await sleep(1000);
          }
          if (left.length > 0) throw new Error(`the driver still has of ${id}: ${left.join('; ')}`);
        }
        return undefined;
      },
      300_000,
    );

    it('every capability × type passed or was declared unavailable with its reason', () => {
      const missing = INSTANCE_TYPES.flatMap((type) =>
        rowsOf(type)
          .filter(
            (name) =>
              results.get(type, name)?.kind !== 'pass' && results.get(type, name)?.kind !== 'unavailable',
          )
          .map((name) => `${type}/${name}`),
      );
      expect(missing).toEqual([]);
    });
  });
}
