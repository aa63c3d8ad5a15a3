import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, rm, rmdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { isN8nPassword, N8N_PASSWORD } from '@berth/openapi/rules';
import { ConflictError, NotFoundError, ValidationError } from '../../../lib/errors.ts';
import { freePort } from '../../../lib/free-port.ts';
import { createKeyedLock } from '../../../lib/keyed-lock.ts';
import { ProvisioningUnavailableError, type ServerHealth } from '../../driver.ts';
import type {
  ArchiveReader,
  ArchiveWriter,
  BackupFacts,
  BackupProgress,
  InstanceEngine,
  N8nSpec,
  SiteUrls,
  SslStatus,
} from '../../engine.ts';
import { type Capability, unavailable } from '../../instance-types.ts';
import { type CaddySite, proxyTo } from '../front-door/caddy-config.ts';
import { checkDomain } from '../front-door/domain-names.ts';
import type { FrontDoor } from '../front-door/front-door.ts';
import { deleteLegacyBackups } from '../host/backup-store.ts';
import { type ControlGroups, DEFAULT_LIMITS, type GroupLimits } from '../host/control-groups.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import { isRoot, type OsUser, ownedDir, systemUser } from '../host/host.ts';
import { shell } from '../host/sandbox-process.ts';
import { hostSeccompProgram } from '../host/seccomp.ts';
import { type SupervisedProcess, superviseProcess } from '../host/supervisor.ts';
import { ensureSiteUser, removeSiteUser } from '../host/tenant-users.ts';
import * as n8nBackups from './n8n-backups.ts';
import { isEmptyDir, n8nDisks } from './n8n-disks.ts';
import {
  installedN8nRuntime,
  missingRuntimeReason,
  N8N_INSTANCE_ENV,
  N8N_LEAN_ENV,
  n8nNodeBinary,
  runtimeInstallUnderWay,
} from './n8n-runtime.ts';
import {
  N8N_BASE_ENV,
  N8N_INSIDE,
  type N8nSandbox,
  n8nSandboxCommand,
  prepareTun,
  runInN8nSandbox,
  writeN8nSandboxFiles,
} from './n8n-sandbox.ts';
import {
  listN8nStates,
  type N8nState,
  n8nNames,
  n8nPaths,
  readN8nState,
  removeN8nState,
  writeN8nState,
} from './n8n-state.ts';
import {
  ensureN8nCompileCache,
  ensureN8nTemplate,
  n8nCompileCache,
  n8nCompileCacheMount,
  n8nTemplate,
  TEMPLATE_FILES,
} from './n8n-warm-ups.ts';

/**
 * n8n instances on this host. Each has its own Unix user (`n8n_<key>`), its own data folder
 * (`<root>/n8n/<id>`, 700, its user's: n8n's SQLite database, its config with the encryption key, its
 * editor cache) and its own process: n8n from the shared runtime (n8n-runtime.ts) on our Node 24, in its
 * own sandbox and network namespace (n8n-sandbox.ts), supervised (restarted with backoff, adopted after
 * an API crash). The front door (shared with the WordPress sites) proxies `<slug>.<base domain>` and a
 * custom domain to its one loopback port. Operations on one instance run one at a time.
 */

export interface LocalN8nOptions {
  /** Where runtimes are installed (n8n-runtime.ts). */
  runtimesDir: string;
  /** The sites' base domain (a custom domain may not lie under it). */
  baseDomain: string;
  /** Default heap limit of an instance's main process (MiB); default 512. */
  memoryMb?: number;
  /** How long an instance may take to answer after a start; default 120 s (a busy 2-core host). */
  readyTimeoutMs?: number;
  /** Size of each instance's disk (its data and temporary files) in MiB; default 1024. */
  diskMb?: number;
  /** IPv4 CIDRs of otherwise blocked ranges instances may reach (TENANT_EGRESS_ALLOW). */
  egressAllow?: readonly string[];
  /** Refuses a new disk the host cannot hold (disk-reserve.ts). */
  reserve?: DiskReserve;
  /** Each instance's control group (its memory and CPU), named by its id. */
  groups: ControlGroups;
}

/**
 * The heaps of n8n's two Node processes within the instance's memory: the main process half of it, the
 * JS task runner (where Code nodes run) a quarter; the rest is Node's own and the buffers outside the
 * heaps. Past the heap a process fails with Node's own error; past the group the kernel stops it.
 */
function n8nHeapsMb(resources: GroupLimits): { main: number; runner: number } {
  return {
    main: Math.max(256, Math.floor(resources.memoryMb / 2)),
    runner: Math.max(128, Math.floor(resources.memoryMb / 4)),
  };
}

/** The operations of n8n instances on this host (the engine below is built from them). */
interface N8nOperations {
  start(): Promise<void>;
  stop(): Promise<void>;
  capability(): Promise<Capability>;
  health(): Promise<Record<string, ServerHealth>>;
  deploy(spec: N8nSpec): Promise<SiteUrls>;
  delete(id: string): Promise<void>;
  suspend(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  setDomain(id: string, domain: string | null): Promise<SiteUrls>;
  sslStatus(id: string): Promise<SslStatus | null>;
  /** Issues the custom domain's certificate again (as for WordPress sites). */
  requestSsl(id: string): Promise<SslStatus>;
  dump(id: string, archive: ArchiveWriter, progress?: BackupProgress): Promise<BackupFacts>;
  restore(id: string, archive: ArchiveReader, progress?: BackupProgress): Promise<void>;
  /** The sandbox of an instance (tests run probes in it like the instance would). */
  sandboxOf(id: string): N8nSandbox;
}

/** The n8n engine of the local driver, and what the driver starts, stops and asks about it. */
export interface LocalN8n {
  engine: InstanceEngine<N8nSpec>;
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<Record<string, ServerHealth>>;
  /** The sandbox of an instance (tests run probes in it like the instance would). */
  sandboxOf(id: string): N8nSandbox;
}

/** n8n's owner password rules (its OwnerSetupRequestDto): 8–64 characters, a digit and a capital. */
function checkN8nPassword(password: string): string {
  if (!isN8nPassword(password)) throw new ValidationError(N8N_PASSWORD.message);
  return password;
}

/** A plain HTTP call to an instance's loopback port (no keep-alive). */
function n8nRequest(
  port: number,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent: false,
        timeout: 15_000,
        headers: payload
          ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }
          : {},
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end(payload);
  });
}

/** Generates an instance's encryption key (what n8n itself would write to its config). */
export const generateN8nKey = (): string => randomBytes(24).toString('base64url');

export function localN8n(
  root: string,
  options: LocalN8nOptions,
  frontDoor: FrontDoor | undefined,
  log: (line: string) => void,
): LocalN8n {
  const processes = new Map<string, SupervisedProcess>();
  const withInstance = createKeyedLock();
  const memoryMb = options.memoryMb ?? 512;
  const disks = n8nDisks(root, { sizeMb: options.diskMb ?? 1024, reserve: options.reserve, log });
  let started = false;
  let startError: string | undefined;

  /** Why instances cannot run here at all (the runtime may still be installing: checked on use). */
  const hostReason = (): string | undefined => {
    if (!isRoot())
      return 'n8n needs the server to run as root (each instance runs as its own user in its own sandbox)';
    return prepareTun();
  };

  function front(): FrontDoor {
    if (!frontDoor?.running()) {
      throw new ProvisioningUnavailableError(
        'n8n',
        unavailable.down('n8n', 'n8n needs the front door (Caddy), which is not running'),
      );
    }
    return frontDoor;
  }

  function runtimeDir(): string {
    const runtime = installedN8nRuntime(options.runtimesDir);
    if (!runtime)
      throw new ProvisioningUnavailableError(
        'n8n',
        unavailable.notOffered('n8n', missingRuntimeReason(options.runtimesDir)),
      );
    return runtime.dir;
  }

  function urlsOf(state: N8nState): SiteUrls {
    const urls = front().urls(n8nNames(state.id).slug, state.domain);
    return { ...urls, adminUrl: `${urls.url}/` };
  }

  function sandboxOf(id: string, user?: OsUser): N8nSandbox {
    const names = n8nNames(id);
    const owner = user ?? systemUser(names.unixUser);
    if (!owner) throw new NotFoundError(`The OS user of n8n instance ${id} is missing`);
    const paths = n8nPaths(root, id);
    const cache = n8nCompileCache(options.runtimesDir);
    return {
      key: names.key,
      user: owner,
      dataDir: paths.dataDir,
      tmpDir: paths.tmpDir,
      egressAllow: options.egressAllow,
      etcDir: paths.etcDir,
      runtimeDir: runtimeDir(),
      nodeBin: n8nNodeBinary(options.runtimesDir),
      compileCache: cache ? { dir: cache, name: n8nCompileCacheMount(cache, owner.uid) } : undefined,
      joins: options.groups.joins(id),
    };
  }

  async function requireState(id: string): Promise<N8nState> {
    const state = await readN8nState(root, n8nNames(id).id);
    if (!state) throw new NotFoundError('n8n instance not found');
    return state;
  }

  /** n8n's environment: its public address, its key, SQLite in /data, everything that phones home off. */
  function n8nEnv(state: N8nState, sandbox: N8nSandbox): Record<string, string> {
    const url = new URL(urlsOf(state).url);
    return {
      ...N8N_BASE_ENV,
      ...N8N_LEAN_ENV,
      // SQLite, Caddy in front (X-Forwarded-*), a cookie the plain-HTTP temporary URL gets back, quiet.
      ...N8N_INSTANCE_ENV,
      // The shared compile cache, read-only (only n8n's main process reads it; its task runner does not).
      ...(sandbox.compileCache ? { NODE_COMPILE_CACHE: N8N_INSIDE.compileCache } : {}),
      N8N_PORT: String(state.port),
      N8N_LISTEN_ADDRESS: '127.0.0.1',
      N8N_HOST: url.hostname,
      N8N_PROTOCOL: url.protocol.replace(':', ''),
      N8N_EDITOR_BASE_URL: `${url.origin}/`,
      WEBHOOK_URL: `${url.origin}/`,
      N8N_USER_FOLDER: N8N_INSIDE.data,
      N8N_ENCRYPTION_KEY: state.encryptionKey,
      N8N_RUNNERS_MAX_OLD_SPACE_SIZE: String(n8nHeapsMb(state.resources ?? DEFAULT_LIMITS).runner),
    };
  }

  function supervisedOf(state: N8nState): SupervisedProcess {
    const sandbox = sandboxOf(state.id);
    const paths = n8nPaths(root, state.id);
    const line = n8nSandboxCommand(sandbox, state.port, [
      N8N_INSIDE.node,
      `--max-old-space-size=${state.memoryMb}`,
      `${N8N_INSIDE.runtime}/node_modules/n8n/bin/n8n`,
      'start',
    ]);
    return superviseProcess(
      {
        name: `n8n of instance ${state.id}`,
        command: line.command,
        args: line.args,
        // prlimit (after the join into the group) execs pasta: the process shows pasta's command line.
        title: line.title,
        user: line.uid === undefined ? undefined : sandbox.user,
        env: n8nEnv(state, sandbox),
        // bwrap, at the end of the line, reads the filter on fd 3 (prlimit, pasta and sh pass it on).
        seccomp: hostSeccompProgram(),
        pidFile: paths.pidFile,
        logFile: paths.logFile,
        stopSignal: 'SIGTERM',
        stopTimeoutMs: 15_000,
        killTree: true,
        // Ready once migrations have run and the REST controllers are mounted: /healthz/readiness and
        // /rest/settings answer 200 well before, while POST /rest/* still answers 404. An empty login
        // is then refused by the login route's own validation (400, JSON).
        ready: async () => {
          const { status, text } = await n8nRequest(state.port, 'POST', '/rest/login', {});
          if (status !== 400 || !text.includes('emailOrLdapLoginId'))
            throw new Error(`POST /rest/login answered ${status}`);
        },
        readyTimeoutMs: options.readyTimeoutMs ?? 120_000,
      },
      log,
    );
  }

  async function startProcess(state: N8nState): Promise<void> {
    let supervised = processes.get(state.id);
    if (!supervised) {
      supervised = supervisedOf(state);
      processes.set(state.id, supervised);
    }
    await supervised.start();
  }

  /** Starts the instance and waits until its temporary URL serves the editor through the front door. */
  async function startServing(state: N8nState): Promise<void> {
    await startProcess(state);
    await front().waitForSite(n8nNames(state.id).slug, 60_000);
  }

  async function stopProcess(id: string): Promise<void> {
    await processes.get(id)?.stop();
    processes.delete(id);
  }

  /** The deploy form's credentials become n8n's owner account (n8n's own setup call), once. */
  async function setupOwner(state: N8nState, spec: N8nSpec): Promise<void> {
    if (state.ownerReady) return;
    const { status, text } = await n8nRequest(state.port, 'POST', '/rest/owner/setup', {
      email: spec.ownerEmail,
      firstName: spec.ownerFirstName ?? spec.ownerEmail.split('@')[0] ?? 'Owner',
      lastName: spec.ownerLastName ?? 'Owner',
      password: spec.ownerPassword,
    });
    // 400 "Instance owner already setup": a deploy retried after the call but before the state file.
    const created = status === 200 && text.includes(`"email":${JSON.stringify(spec.ownerEmail)}`);
    if (!created && !(status === 400 && /already setup/i.test(text))) {
      throw new Error(`n8n owner setup answered ${status}: ${text.slice(0, 300)}`);
    }
    state.ownerReady = true;
    await writeN8nState(root, state);
  }

  /**
   * A new instance's database starts as a copy of the runtime's migrated template (n8n-runtime.ts), so
   * its first start skips the migrations. The data folder is new and empty here (just made by us).
   */
  async function seedDatabase(dataDir: string, user: OsUser): Promise<void> {
    const template = n8nTemplate(options.runtimesDir);
    const folder = path.join(dataDir, '.n8n');
    if (!template || existsSync(folder)) return;
    await mkdir(folder, { mode: 0o700 });
    await chown(folder, user.uid, user.gid);
    for (const file of TEMPLATE_FILES) {
      if (!existsSync(path.join(template, file))) continue;
      const target = path.join(folder, file);
      await copyFile(path.join(template, file), target);
      await chown(target, user.uid, user.gid);
      await chmod(target, 0o600);
    }
  }

  /**
   * An instance made before disks existed: its files, moved aside to `old` (a folder of its own in
   * root's n8n/), are copied onto its disk by its own user in its sandbox (tmp/ is not worth keeping),
   * then removed there; root only removes the folder once it is empty.
   */
  async function moveOntoDisk(id: string, old: string, user: OsUser): Promise<void> {
    const sandbox = sandboxOf(id, user);
    await runInN8nSandbox(
      sandbox,
      shell(
        'find /old -mindepth 1 -maxdepth 1 ! -name tmp -exec cp -a {} "$1"/ \\;\nfind /old -mindepth 1 -delete',
        N8N_INSIDE.data,
      ),
      { binds: [[old, '/old']] },
    );
    if (await isEmptyDir(old)) await rmdir(old);
    else log(`n8n instance ${id}: ${old} was copied onto its disk but is not empty; left in place`);
  }

  async function bringBack(): Promise<void> {
    await Promise.all(
      (await listN8nStates(root)).map(async (state) => {
        try {
          await disks.mount(state.id);
          await options.groups.ensure(state.id, state.resources ?? DEFAULT_LIMITS);
          if (state.suspended) return;
          await startProcess(state);
        } catch (error) {
          log(`n8n instance ${state.id} did not come back: ${(error as Error).message}`);
        }
      }),
    );
  }

  async function domainHolder(domain: string, id: string): Promise<boolean> {
    return (await listN8nStates(root)).some((s) => s.id !== id && s.domain === domain);
  }

  async function stillRunning(state: N8nState) {
    if (state.suspended) throw new ConflictError('The instance is suspended');
  }

  /** The front door's routes of n8n instances: each one's hosts to its loopback port. */
  async function caddySites(): Promise<CaddySite[]> {
    if (!frontDoor) return [];
    return (await listN8nStates(root)).map((state) => ({
      id: state.id,
      temporaryHost: frontDoor.temporaryHost(n8nNames(state.id).slug),
      domain: state.domain,
      suspended: state.suspended,
      handler: proxyTo(`127.0.0.1:${state.port}`),
    }));
  }
  frontDoor?.addRoutes(caddySites);

  const api: N8nOperations = {
    sandboxOf: (id) => sandboxOf(id),

    async start() {
      if (started) return;
      const missing = hostReason();
      if (missing) {
        startError = missing;
        log(missing);
        return;
      }
      for (const dir of ['n8n', 'sandbox']) await ownedDir(path.join(root, dir), undefined, 0o711);
      await ownedDir(path.join(root, 'n8n-state'), undefined, 0o700);
      started = true;
      startError = undefined;
      const nobody = systemUser('nobody');
      if (nobody)
        void ensureN8nTemplate(options.runtimesDir, nobody, log)
          .then(() => ensureN8nCompileCache(options.runtimesDir, nobody, log))
          .catch((error: Error) => log(`n8n template database or compile cache not made: ${error.message}`));
      await bringBack();
    },

    async stop() {
      started = false;
      await Promise.all([...processes.keys()].map((id) => stopProcess(id)));
    },

    async capability() {
      const host = hostReason();
      if (host) return unavailable.notOffered('n8n', host);
      const missing = missingRuntimeReason(options.runtimesDir);
      if (missing) {
        // Installing (in the background after the first start: minutes): customers learn when it is ready.
        const install = runtimeInstallUnderWay(options.runtimesDir);
        return install
          ? unavailable.settingUp(
              'n8n',
              `${missing} (an install is under way since ${install.began.toISOString()})`,
              install.minutesLeft,
            )
          : unavailable.notOffered('n8n', missing);
      }
      if (!started)
        return startError
          ? unavailable.down('n8n', startError)
          : unavailable.settingUp('n8n', 'The provisioning driver is not started');
      if (!frontDoor?.running())
        return unavailable.down('n8n', 'n8n needs the front door (Caddy), which is not running');
      return { available: true };
    },

    async health() {
      const all = [...processes.entries()];
      const down = all.filter(([, p]) => p.status().state !== 'running');
      return {
        n8n: {
          kind: 'local',
          state: down.length === 0 ? 'running' : 'failed',
          ok: down.length === 0,
          message: `${all.length - down.length} of ${all.length} instances running${down.length ? `; down: ${down.map(([id]) => id).join(', ')}` : ''}`,
        },
      };
    },

    deploy(spec) {
      const names = n8nNames(spec.id);
      return withInstance(spec.id, async () => {
        const door = front();
        // Where a deploy's time goes (logged): user and data folder, n8n until ready, owner, route.
        const phases: string[] = [];
        let mark = performance.now();
        const started = mark;
        const phase = (name: string) => {
          const now = performance.now();
          phases.push(`${name} ${(now - mark).toFixed(0)} ms`);
          mark = now;
        };
        const previous = await readN8nState(root, spec.id);
        if (!previous?.ownerReady) checkN8nPassword(spec.ownerPassword);
        const paths = n8nPaths(root, spec.id);
        const user = await ensureSiteUser(names.unixUser, paths.dataDir);
        // What it was sold now, else what it had, else the default; before anything of it runs.
        const resources = spec.resources ?? previous?.resources ?? DEFAULT_LIMITS;
        await options.groups.ensure(spec.id, resources);
        phase('user');
        await writeN8nSandboxFiles(paths.etcDir, user);
        const oldLayout = await disks.ensure(spec.id, user);
        if (oldLayout) await moveOntoDisk(spec.id, oldLayout, user);
        // Only on the first deploy, before any process of the instance exists: afterwards the folder is
        // the customer's, and root never opens or chowns a name in it.
        if (!previous) await seedDatabase(paths.dataDir, user);
        await writeN8nSandboxFiles(paths.etcDir, user);
        const state: N8nState = {
          id: spec.id,
          port: previous?.port ?? (await freePort()),
          ownerEmail: previous?.ownerEmail ?? spec.ownerEmail,
          // The platform's key wins (it is what backups were made with); the first deploy stores it.
          encryptionKey: spec.encryptionKey,
          memoryMb: spec.resources ? n8nHeapsMb(resources).main : (previous?.memoryMb ?? memoryMb),
          resources,
          domain: previous?.domain ?? null,
          suspended: previous?.suspended ?? false,
          ownerReady: previous?.ownerReady ?? false,
          createdAt: previous?.createdAt ?? new Date().toISOString(),
        };
        await writeN8nState(root, state);
        phase('data');
        if (!state.suspended || !state.ownerReady) {
          await startProcess(state);
          phase('n8n ready');
          await setupOwner(state, spec);
          phase('owner');
        }
        await door.reload();
        if (!state.suspended) await door.waitForSite(names.slug, 60_000);
        else await stopProcess(spec.id);
        phase('route');
        const cache = sandboxOf(spec.id).compileCache ? 'with' : 'without';
        log(
          `n8n instance ${spec.id} deployed in ${(performance.now() - started).toFixed(0)} ms (${phases.join(', ')}; ${cache} compile cache)`,
        );
        return urlsOf(state);
      });
    },

    delete(id) {
      const names = n8nNames(id);
      return withInstance(id, async () => {
        const state = await readN8nState(root, id);
        const paths = n8nPaths(root, id);
        if (state?.domain && frontDoor?.running()) await front().removeCertificates(state.domain);
        await removeN8nState(root, id);
        if (frontDoor?.running()) await front().reload();
        if (!processes.has(id) && existsSync(paths.pidFile) && state) {
          // Not ours yet (a crashed start): adopt it to stop it.
          await supervisedOf(state)
            .stop()
            .catch(() => {});
        }
        await stopProcess(id);
        await options.groups.remove(id);
        await removeSiteUser(names.unixUser);
        // Its disk holds every file of the instance: unmounted and deleted, nothing inside is opened.
        await disks.remove(id);
        await rm(paths.etcDir, { recursive: true, force: true });
        await rm(paths.logFile, { force: true });
        await rm(paths.pidFile, { force: true });
        await deleteLegacyBackups(root, id);
      });
    },

    suspend(id) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        await writeN8nState(root, { ...state, suspended: true });
        await front().reload();
        await stopProcess(id);
      });
    },

    resume(id) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        const resumed = { ...state, suspended: false };
        await writeN8nState(root, resumed);
        await startProcess(resumed);
        await front().reload();
        await front().waitForSite(n8nNames(id).slug, 60_000);
      });
    },

    setDomain(id, domain) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        await stillRunning(state);
        const door = front();
        const name = domain === null ? null : checkDomain(domain, options.baseDomain);
        if (name && (await domainHolder(name, id)))
          throw new ConflictError(`The domain ${name} is already attached to another site`);
        if (state.domain === name) return urlsOf(state);
        if (state.domain) await door.removeCertificates(state.domain);
        const changed = { ...state, domain: name };
        await writeN8nState(root, changed);
        await door.reload();
        // WEBHOOK_URL and the editor's address follow the domain: restart with the new environment.
        await stopProcess(id);
        await startServing(changed);
        return urlsOf(changed);
      });
    },

    async sslStatus(id) {
      const state = await requireState(id);
      if (!state.domain) return null;
      return front().sslStatus(state.domain);
    },

    async requestSsl(id) {
      await withInstance(id, async () => {
        const state = await requireState(id);
        await stillRunning(state);
        const domain = state.domain;
        if (!domain) throw new ValidationError('SSL is only available for custom domains');
        // Caddy keeps a managed certificate in memory across reloads: stop managing the name, drop the
        // stored certificate, then manage it again so a new one is issued.
        const door = front();
        await door.reload((sites) => sites.map((s) => (s.id === id ? { ...s, domain: null } : s)));
        await door.removeCertificates(domain);
        await door.reload();
      });
      const status = await api.sslStatus(id);
      if (!status) throw new ValidationError('SSL is only available for custom domains');
      return status;
    },

    dump(id, archive, progress) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        await stillRunning(state);
        // SQLite is copied consistently only while n8n is stopped (a few seconds).
        progress?.('Stopping n8n for a consistent copy');
        await stopProcess(id);
        try {
          progress?.('Copying the data');
          await n8nBackups.dumpN8nData(sandboxOf(id), archive);
          return {};
        } finally {
          await startServing(state);
        }
      });
    },

    restore(id, archive, progress) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        await stillRunning(state);
        await stopProcess(id);
        try {
          progress?.('Restoring the data');
          await n8nBackups.restoreN8nData(sandboxOf(id), archive);
        } finally {
          progress?.('Starting n8n');
          await startServing(state);
        }
      });
    },
  };
  return {
    start: api.start,
    stop: api.stop,
    health: api.health,
    sandboxOf: api.sandboxOf,
    engine: {
      type: 'n8n',
      capability: api.capability,
      deploy: async (spec) => ({ urls: await api.deploy(spec) }),
      delete: api.delete,
      suspend: api.suspend,
      resume: api.resume,
      domains: { set: api.setDomain, sslStatus: api.sslStatus, requestSsl: api.requestSsl },
      backups: {
        dump: (spec, archive, progress) => api.dump(spec.id, archive, progress),
        restore: (spec, archive, _facts, progress) => api.restore(spec.id, archive, progress),
      },
      storage: {
        async usage(id) {
          await requireState(id);
          const usage = await disks.usage(id);
          return { usedBytes: usage.usedBytes, limitBytes: usage.sizeBytes };
        },
      },
    },
  };
}
