import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { missingRuntimeReason, runtimeInstallUnderWay } from '../../apps/n8n/n8n-runtime.ts';
import type { ServerHealth } from '../../driver.ts';
import { featuresOf, type InstanceEngine, type N8nSpec } from '../../engine.ts';
import { type CaddySite, proxyTo } from '../../front-door/caddy-config.ts';
import { type Capability, unavailable } from '../../instance-types.ts';
import type { FrontDoor } from '../front-door/front-door.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import { isRoot, ownedDir, systemUser } from '../host/host.ts';
import { type LocalN8nOptions, n8nContext } from './n8n-context.ts';
import { n8nDomains } from './n8n-domains.ts';
import { n8nInstanceBackups } from './n8n-instance-backups.ts';
import { n8nLifecycle } from './n8n-lifecycle.ts';
import { type N8nSandbox, prepareTun } from './n8n-sandbox.ts';
import { listN8nStates, n8nNames } from './n8n-state.ts';
import { ensureN8nCompileCache, ensureN8nTemplate } from './n8n-warm-ups.ts';

/**
 * n8n instances on this host. Each has its own Unix user (`n8n_<key>`), its own data folder
 * (`<root>/n8n/<id>`, 700, its user's: n8n's SQLite database, its config with the encryption key, its
 * editor cache) and its own process: n8n from the shared runtime (n8n-runtime.ts) on our Node 24, in its
 * own sandbox and network namespace (n8n-sandbox.ts), supervised (restarted with backoff, adopted after
 * an API crash). The front door (shared with the WordPress sites) proxies `<slug>.<base domain>` and a
 * custom domain to its one loopback port. Operations on one instance run one at a time.
 *
 * This file starts and stops them all and answers whether n8n is offered; the operations on one
 * instance live in n8n-lifecycle.ts, n8n-domains.ts and n8n-instance-backups.ts over n8n-context.ts.
 */

/** The n8n engine of the local driver, and what the driver starts, stops and asks about it. */
export interface LocalN8n {
  engine: InstanceEngine<N8nSpec>;
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<Record<string, ServerHealth>>;
  /** The sandbox of an instance (tests run probes in it like the instance would). */
  sandboxOf(id: string): N8nSandbox;
}

/** Generates an instance's encryption key (what n8n itself would write to its config). */
export const generateN8nKey = (): string => randomBytes(24).toString('base64url');

export function localN8n(
  root: string,
  options: LocalN8nOptions,
  frontDoor: FrontDoor | undefined,
  log: (line: string) => void,
): LocalN8n {
  const ctx = n8nContext(root, options, frontDoor, log);
  const { processes, disks } = ctx;
  let started = false;
  let startError: string | undefined;

  /** Why instances cannot run here at all (the runtime may still be installing: checked on use). */
  const hostReason = (): string | undefined => {
    if (!isRoot())
      return 'n8n needs the server to run as root (each instance runs as its own user in its own sandbox)';
    return prepareTun();
  };

  /** After a restart of the API: every instance's disk and group again, and the running ones' n8n. */
  async function bringBack(): Promise<void> {
    await Promise.all(
      (await listN8nStates(root)).map(async (state) => {
        try {
          await disks.mount(state.id);
          await options.groups.ensure(state.id, state.resources ?? DEFAULT_LIMITS);
          if (state.suspended) return;
          await ctx.startProcess(state);
        } catch (error) {
          log(`n8n instance ${state.id} did not come back: ${(error as Error).message}`);
        }
      }),
    );
  }

  /**
   * The front door's routes of n8n instances: each one's hosts to its loopback port. Only once it has its
   * owner: n8n gives its owner account to whoever asks first, so an instance between its first start and
   * the platform's setup call (another deploy may reload the front door meanwhile) is not reachable.
   */
  async function caddySites(): Promise<CaddySite[]> {
    if (!frontDoor) return [];
    const owned = (await listN8nStates(root)).filter((state) => state.ownerReady);
    return owned.map((state) => ({
      id: state.id,
      temporaryHost: frontDoor.temporaryHost(n8nNames(state.id).slug),
      domain: state.domain,
      suspended: state.suspended,
      handler: proxyTo(`127.0.0.1:${state.port}`),
    }));
  }
  frontDoor?.addRoutes(caddySites);

  async function capability(): Promise<Capability> {
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
  }

  const lifecycle = n8nLifecycle(ctx);
  return {
    sandboxOf: (id) => ctx.sandboxOf(id),

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
      await Promise.all([...processes.keys()].map((id) => ctx.stopProcess(id)));
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

    engine: {
      type: 'n8n',
      features: featuresOf('n8n'),
      capability,
      deploy: async (spec) => ({ urls: await lifecycle.deploy(spec) }),
      delete: lifecycle.delete,
      suspend: lifecycle.suspend,
      resume: lifecycle.resume,
      domains: n8nDomains(ctx),
      backups: n8nInstanceBackups(ctx),
      storage: {
        async usage(id) {
          await ctx.requireState(id);
          const usage = await disks.usage(id);
          return { usedBytes: usage.usedBytes, limitBytes: usage.sizeBytes, roomBytes: usage.freeBytes };
        },
      },
    },
  };
}
