import { existsSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../../lib/free-port.ts';
import { checkN8nOwner, setUpN8nOwner } from '../../apps/n8n/n8n-owner.ts';
import type { N8nSpec, SiteUrls } from '../../engine.ts';
import { deleteLegacyBackups } from '../host/backup-store.ts';
import { DEFAULT_LIMITS, INSTALL_CPUS } from '../host/control-groups.ts';
import type { OsUser } from '../host/host.ts';
import { shell } from '../host/sandbox-process.ts';
import { ensureSiteUser, removeSiteUser } from '../host/tenant-users.ts';
import type { N8nContext } from './n8n-context.ts';
import { isEmptyDir } from './n8n-disks.ts';
import { n8nHeapsMb, n8nRequest } from './n8n-process.ts';
import { N8N_INSIDE, runInN8nSandbox, writeN8nSandboxFiles } from './n8n-sandbox.ts';
import {
  type N8nState,
  n8nNames,
  n8nPaths,
  readN8nState,
  removeN8nState,
  writeN8nState,
} from './n8n-state.ts';
import { n8nTemplate, TEMPLATE_FILES } from './n8n-warm-ups.ts';

/** The deploy form's credentials become n8n's owner account (n8n's own setup call), once. */
async function setupOwner(root: string, state: N8nState, spec: N8nSpec): Promise<void> {
  if (state.ownerReady) return;
  await setUpN8nOwner((method, urlPath, body) => n8nRequest(state.port, method, urlPath, body), spec);
  state.ownerReady = true;
  await writeN8nState(root, state);
}

/**
 * A new instance's database starts as a copy of the runtime's migrated template (n8n-runtime.ts), so
 * its first start skips the migrations. The data folder is new and empty here (just made by us).
 */
async function seedDatabase(runtimesDir: string, dataDir: string, user: OsUser): Promise<void> {
  const template = n8nTemplate(runtimesDir);
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
 * An instance's life: deploy (user, group, disk, first database, state, n8n until ready, owner, route),
 * suspend and resume (route and process), and delete (everything it had on this host).
 */
export function n8nLifecycle(ctx: N8nContext) {
  const { root, options, log, disks, withInstance, front, requireState, sandboxOf } = ctx;
  const memoryMb = options.memoryMb ?? 512;

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

  return {
    deploy(spec: N8nSpec): Promise<SiteUrls> {
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
        if (!previous?.ownerReady) checkN8nOwner(spec);
        const paths = n8nPaths(root, spec.id);
        const user = await ensureSiteUser(names.unixUser, paths.dataDir);
        // What it was sold now, else what it had, else the default; before anything of it runs.
        const resources = spec.resources ?? previous?.resources ?? DEFAULT_LIMITS;
        // n8n's first start (its migrations, compiling its code) runs before it has an owner or a route:
        // nothing of the tenant's is in it, and nobody can sign in. It gets a core (17 s at 0.5 vCPU,
        // 8.8 s at 1 here), and the instance its own limit once the owner is set up. An instance gets an
        // owner once, so no tenant can ask for the core again.
        const firstStart = !previous?.ownerReady;
        const startLimits = firstStart
          ? { ...resources, cpus: Math.max(resources.cpus, INSTALL_CPUS) }
          : resources;
        await options.groups.ensure(spec.id, startLimits);
        phase('user');
        await writeN8nSandboxFiles(paths.etcDir, user);
        const oldLayout = await disks.ensure(spec.id, user);
        if (oldLayout) await moveOntoDisk(spec.id, oldLayout, user);
        // Only on the first deploy, before any process of the instance exists: afterwards the folder is
        // the customer's, and root never opens or chowns a name in it.
        if (!previous) await seedDatabase(options.runtimesDir, paths.dataDir, user);
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
          try {
            await ctx.startProcess(state);
            phase(firstStart ? `n8n ready (first start, ${startLimits.cpus} vCPU)` : 'n8n ready');
            await setupOwner(root, state, spec);
            phase('owner');
          } finally {
            if (startLimits !== resources) await options.groups.ensure(spec.id, resources);
          }
        }
        await door.reload();
        if (!state.suspended) await door.waitForSite(names.slug, 60_000);
        else await ctx.stopProcess(spec.id);
        phase('route');
        const cache = sandboxOf(spec.id).compileCache ? 'with' : 'without';
        log(
          `n8n instance ${spec.id} deployed in ${(performance.now() - started).toFixed(0)} ms (${phases.join(', ')}; ${cache} compile cache)`,
        );
        return ctx.urlsOf(state);
      });
    },

    delete(id: string): Promise<void> {
      const names = n8nNames(id);
      return withInstance(id, async () => {
        const state = await readN8nState(root, id);
        const paths = n8nPaths(root, id);
        if (state?.domain && ctx.frontDoor?.running()) await front().removeCertificates(state.domain);
        await removeN8nState(root, id);
        if (ctx.frontDoor?.running()) await front().reload();
        if (!ctx.processes.has(id) && existsSync(paths.pidFile) && state) {
          // Not ours yet (a crashed start): adopt it to stop it.
          await ctx
            .supervisedOf(state)
            .stop()
            .catch(() => {});
        }
        await ctx.stopProcess(id);
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

    suspend(id: string): Promise<void> {
      return withInstance(id, async () => {
        const state = await requireState(id);
        await writeN8nState(root, { ...state, suspended: true });
        await front().reload();
        await ctx.stopProcess(id);
      });
    },

    resume(id: string): Promise<void> {
      return withInstance(id, async () => {
        const state = await requireState(id);
        const resumed = { ...state, suspended: false };
        await writeN8nState(root, resumed);
        await ctx.startProcess(resumed);
        await front().reload();
        await front().waitForSite(n8nNames(id).slug, 60_000);
      });
    },
  };
}
