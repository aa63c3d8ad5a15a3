import { rm } from 'node:fs/promises';
import { ConflictError, ValidationError } from '../../../lib/errors.ts';
import { generateSalts } from '../../apps/wordpress/salts.ts';
import { hashSecret } from '../../apps/wordpress/sftp-server.ts';
import { checkSiteSpec } from '../../apps/wordpress/site-spec.ts';
import type { Deployment, SiteSpec, StorageUse } from '../../engine.ts';
import { generatePassword } from '../../tenant-names.ts';
import { tenantLimits } from '../databases/tenant-limits.ts';
import { deleteLegacyBackups } from '../host/backup-store.ts';
import { DEFAULT_LIMITS, INSTALL_CPUS } from '../host/control-groups.ts';
import { installedPhpVersions } from '../host/php.ts';
import { ensureSiteUser, removeSiteUser } from '../host/tenant-users.ts';
import { phpLogFile } from './php-fpm.ts';
import { installPageCache, writeWpConfig } from './site-files.ts';
import { siteNames, sitePaths } from './site-names.ts';
import { sandboxEtcDir, writeSandboxAccounts } from './site-sandbox.ts';
import {
  listSiteStates,
  readSiteState,
  removeSiteState,
  type SiteState,
  writeSiteState,
} from './site-state.ts';
import type { SiteContext } from './wordpress-context.ts';
import { runInstall, writeInstallScript } from './wordpress-install.ts';

/** Durations of the steps of an operation, for the log. */
function stepTimer() {
  const start = performance.now();
  let last = start;
  const parts: string[] = [];
  return {
    mark(step: string) {
      const now = performance.now();
      parts.push(`${step} ${(now - last).toFixed(0)} ms`);
      last = now;
    },
    summary: () => `${(last - start).toFixed(0)} ms (${parts.join(', ')})`,
  };
}

function checkPhpVersion(version: string): void {
  const available = installedPhpVersions();
  if (!available.includes(version)) {
    throw new ValidationError(
      `PHP ${version} is not installed on this host (available: ${available.join(', ') || 'none'})`,
    );
  }
}

/**
 * A site's life: deploy (first install, or a redeploy that keeps WordPress, its salts, domain and
 * suspension and sets new passwords), delete (everything of the site goes, its backups too), and its
 * disk usage.
 */
export function siteLifecycle(ctx: Omit<SiteContext, 'caddySites'>, publicHost: string | undefined) {
  const { root, front, disks, groups, withSite, log } = ctx;

  return {
    deploy(input: SiteSpec): Promise<Deployment> {
      const spec = checkSiteSpec(input);
      const names = siteNames(spec.id);
      return withSite(spec.id, async () => {
        const sftp = ctx.runningSftp();
        checkPhpVersion(spec.phpVersion);
        const clash = (await listSiteStates(root)).find(
          (s) => s.id !== spec.id && siteNames(s.id).key === names.key,
        );
        if (clash)
          throw new ConflictError(`Site ${spec.id} would share the key ${names.key} with site ${clash.id}`);
        const previous = await readSiteState(root, spec.id);
        const databasePassword = spec.databasePassword ?? generatePassword();
        const sftpPassword = spec.sftpPassword ?? generatePassword();
        // What it was sold now, else what it had (a redeploy of a site made before), else the default.
        const resources = spec.resources ?? previous?.resources ?? DEFAULT_LIMITS;
        // The first install runs the platform's code only (nothing of the tenant's is on the site yet,
        // and it is routed once installed): it gets a core, and the site its own limit once it answers.
        // A site installs once, so no tenant can ask for the core again.
        const installing = !previous?.installed;
        const deployLimits = installing
          ? { ...resources, cpus: Math.max(resources.cpus, INSTALL_CPUS) }
          : resources;
        const steps = stepTimer();
        const [, owner] = await Promise.all([
          ctx
            .mariadb()
            .tenants.create(names.tenant, databasePassword, ctx.databaseMb, tenantLimits(resources)),
          (async () => {
            const user = await ensureSiteUser(names.unixUser, sitePaths(root, spec.id).dir);
            const etcDir = sandboxEtcDir(root, names.key);
            await writeSandboxAccounts(etcDir, user);
            await writeInstallScript(etcDir);
            // Before anything of the site runs: every sandbox of it starts inside its group.
            await groups.ensure(spec.id, deployLimits);
            await disks.ensure(spec.id, user, front.user());
            return user;
          })(),
        ]);
        steps.mark('tenant, user and disk');
        const state: SiteState = {
          id: spec.id,
          type: 'wordpress',
          phpVersion: spec.phpVersion,
          title: spec.title,
          adminUser: spec.adminUser,
          adminEmail: spec.adminEmail,
          databasePassword,
          sftpPasswordHash: await hashSecret(sftpPassword),
          salts: previous?.salts ?? generateSalts(),
          domain: previous?.domain ?? null,
          suspended: previous?.suspended ?? false,
          installed: previous?.installed ?? false,
          resources,
          createdAt: previous?.createdAt ?? new Date().toISOString(),
        };
        await writeSiteState(root, state);
        const sandbox = ctx.sandboxOf(spec.id, owner);
        await writeWpConfig(sandbox, ctx.siteConfig(state));
        await installPageCache(sandbox);
        const install = async () => {
          if (state.installed) return;
          const installed = await runInstall(sandbox, {
            phpVersion: spec.phpVersion,
            memoryMb: resources.memoryMb,
            url: ctx.urlsOf(state).url,
            title: spec.title,
            adminUser: spec.adminUser,
            adminEmail: spec.adminEmail,
            adminPassword: spec.adminPassword,
          });
          if (!installed) log(`site ${spec.id}: WordPress was already installed; its admin account is kept`);
          state.installed = true;
          await writeSiteState(root, state);
        };
        try {
          await Promise.all([state.suspended ? Promise.resolve() : ctx.phps.start(state), install()]);
          steps.mark('php and install');
          // Routed only once installed: WordPress' web installer must never be reachable.
          await ctx.reloadFront();
          steps.mark('route');
          if (!state.suspended) await front.waitForSite(names.slug);
          steps.mark('first 200');
        } finally {
          if (deployLimits !== resources) await groups.ensure(spec.id, resources);
        }
        log(`site ${spec.id} deployed: ${steps.summary()}`);
        sftp.server.disconnect(names.slug); // sessions opened with a previous password
        const database = ctx.databaseOf(state);
        return {
          urls: ctx.urlsOf(state),
          sftp: {
            host: publicHost ?? front.probeHost,
            port: sftp.port,
            user: names.slug,
            password: sftpPassword,
          },
          database: { ...database, host: publicHost ?? database.host },
        };
      });
    },

    delete(id: string): Promise<void> {
      const names = siteNames(id);
      return withSite(id, async () => {
        ctx.runningSftp().server.disconnect(names.slug);
        const state = await readSiteState(root, id);
        if (state?.domain) await front.removeCertificates(state.domain);
        await removeSiteState(root, id);
        await ctx.reloadFront();
        await ctx.phps.stop(id);
        // Its sandbox's output (what its PHP printed) goes with it, as everything else of the site.
        await rm(phpLogFile(root, names.key), { force: true });
        await groups.remove(id);
        await ctx.mariadb().tenants.delete(names.tenant);
        await removeSiteUser(names.unixUser);
        // The whole disk goes: no file of the customer's is walked or removed one by one as root.
        await disks.remove(id);
        await rm(sandboxEtcDir(root, names.key), { recursive: true, force: true });
        await deleteLegacyBackups(root, id);
      });
    },

    async storage(id: string): Promise<StorageUse> {
      await ctx.requireState(id);
      if (!disks.isMounted(id)) throw new ConflictError("The site's disk is not mounted");
      const usage = await disks.usage(id);
      return { usedBytes: usage.usedBytes, limitBytes: usage.sizeBytes, roomBytes: usage.freeBytes };
    },
  };
}
