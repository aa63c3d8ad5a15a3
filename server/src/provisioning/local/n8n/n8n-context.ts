import { ConflictError, NotFoundError } from '../../../lib/errors.ts';
import { createKeyedLock, type KeyedLock } from '../../../lib/keyed-lock.ts';
import { installedN8nRuntime, missingRuntimeReason, n8nNodeBinary } from '../../apps/n8n/n8n-runtime.ts';
import { ProvisioningUnavailableError } from '../../driver.ts';
import type { SiteUrls } from '../../engine.ts';
import { unavailable } from '../../instance-types.ts';
import type { FrontDoor } from '../front-door/front-door.ts';
import type { ControlGroups } from '../host/control-groups.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import { type OsUser, systemUser } from '../host/host.ts';
import type { SupervisedProcess } from '../host/supervisor.ts';
import { type N8nDisks, n8nDisks } from './n8n-disks.ts';
import { supervisedN8n } from './n8n-process.ts';
import type { N8nSandbox } from './n8n-sandbox.ts';
import { type N8nState, n8nNames, n8nPaths, readN8nState } from './n8n-state.ts';
import { n8nCompileCache, n8nCompileCacheMount } from './n8n-warm-ups.ts';

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
 * What the n8n instance operations share: where instances live, the front door, their disks, their
 * supervised processes, and how an instance's state turns into its sandbox and addresses. Each
 * operation file (n8n-lifecycle.ts, n8n-domains.ts, n8n-instance-backups.ts) takes only the parts it
 * uses; n8n-instances.ts builds the engine from them.
 */
export interface N8nContext {
  root: string;
  options: LocalN8nOptions;
  log: (line: string) => void;
  /** The front door as configured (undefined without one; it may not be running). */
  frontDoor: FrontDoor | undefined;
  disks: N8nDisks;
  /** The supervised n8n of each instance started by this process, by id. */
  processes: Map<string, SupervisedProcess>;
  /** Operations on one instance run one at a time (keyed on the instance id). */
  withInstance: KeyedLock;
  /** The running front door; a ProvisioningUnavailableError when it is not running. */
  front(): FrontDoor;
  /** The sandbox the instance's programs run in, as its own user (looked up unless given). */
  sandboxOf(id: string, user?: OsUser): N8nSandbox;
  /** The instance's state; a NotFoundError when there is no such instance. */
  requireState(id: string): Promise<N8nState>;
  urlsOf(state: N8nState): SiteUrls;
  /** The instance's supervised n8n (made, not started; it adopts a process left by a crashed start). */
  supervisedOf(state: N8nState): SupervisedProcess;
  startProcess(state: N8nState): Promise<void>;
  stopProcess(id: string): Promise<void>;
  /** Starts the instance and waits until its temporary URL serves the editor through the front door. */
  startServing(state: N8nState): Promise<void>;
}

export function n8nContext(
  root: string,
  options: LocalN8nOptions,
  frontDoor: FrontDoor | undefined,
  log: (line: string) => void,
): N8nContext {
  const processes = new Map<string, SupervisedProcess>();
  const disks = n8nDisks(root, { sizeMb: options.diskMb ?? 1024, reserve: options.reserve, log });

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

  function supervisedOf(state: N8nState): SupervisedProcess {
    const sandbox = sandboxOf(state.id);
    return supervisedN8n(root, state, sandbox, urlsOf(state).url, {
      readyTimeoutMs: options.readyTimeoutMs,
      log,
    });
  }

  async function startProcess(state: N8nState): Promise<void> {
    let supervised = processes.get(state.id);
    if (!supervised) {
      supervised = supervisedOf(state);
      processes.set(state.id, supervised);
    }
    await supervised.start();
  }

  return {
    root,
    options,
    log,
    frontDoor,
    disks,
    processes,
    withInstance: createKeyedLock(),
    front,
    sandboxOf,
    urlsOf,
    supervisedOf,
    startProcess,

    async requireState(id) {
      const state = await readN8nState(root, n8nNames(id).id);
      if (!state) throw new NotFoundError('n8n instance not found');
      return state;
    },

    async stopProcess(id) {
      await processes.get(id)?.stop();
      processes.delete(id);
    },

    async startServing(state) {
      await startProcess(state);
      await front().waitForSite(n8nNames(state.id).slug, 60_000);
    },
  };
}

/** Refuses an operation on a suspended instance. */
export function stillRunning(state: N8nState): void {
  if (state.suspended) throw new ConflictError('The instance is suspended');
}
