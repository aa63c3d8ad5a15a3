import { ValidationError } from '../../lib/errors.ts';
import { checkSiteSpec } from '../apps/wordpress/site-spec.ts';
import { featuresOf, type InstanceEngine, NO_SITE_DATABASE_ADMIN, type SiteSpec } from '../engine.ts';
import { checkDomain } from '../front-door/domain-names.ts';
import { unavailable } from '../instance-types.ts';
import { instanceLabels } from './database-engine.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import { applyService, instanceNames, scale, waitForRunning } from './services.ts';
import { SFTP_LABEL, type SwarmSftp } from './site-sftp.ts';
import type { SwarmContext } from './swarm-context.ts';
import { volumeMount, volumeNode, volumeStorage } from './volumes.ts';
import { certificateOps, requireWebState, secretOf, webState } from './web-instance.ts';
import { wordpressBackups } from './wordpress-backups.ts';
import { wordpressDeployment } from './wordpress-deployment.ts';
import { specOf, WP_ROOT, wordpressAppSpec } from './wordpress-services.ts';

/**
 * WordPress on a swarm: two services per site, both pinned to the node first chosen for them (their
 * volumes live there) and joined by the site's own overlay network, which is internal (no way out) and
 * shared with nobody but the region's front door:
 *
 * - `berth-<key>`: Apache with mod_php as www-data, WordPress core read-only from the image, wp-content
 *   on the site's volume; the memory and CPU the site was sold.
 * - `berth-<key>-db`: the site's own MariaDB (the image of MySQL instances), 256 MB and 0.25 vCPU on
 *   top, its data on a second volume.
 *
 * Passwords and WordPress' salts are Docker secrets (files only www-data or mysql can read). A custom
 * domain is a label the front door routes by, and the site address WordPress is told on its next start.
 */

/** The local driver's checks of a site spec (title, admin, passwords), and the one PHP version here. */
function checkSpec(spec: SiteSpec): SiteSpec {
  const { title } = checkSiteSpec(spec);
  if (spec.phpVersion !== '8.2') throw new ValidationError('PHP 8.2 is the version sites run on here');
  return { ...spec, title };
}

export function wordpressEngine(
  ctx: SwarmContext,
  doors: SwarmFrontDoors,
  sftp: SwarmSftp,
): InstanceEngine<SiteSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  const stateOf = (id: string) => webState(ctx, id);
  const requireState = (id: string) => requireWebState(ctx, id, 'Site');
  const { apply, removeAll } = wordpressDeployment(ctx, doors);

  return {
    type: 'wordpress',
    features: featuresOf('wordpress', {
      ...(ctx.options.sftp ? {} : { sftp: 'SFTP is not offered on this server' }),
      databaseAdmin: NO_SITE_DATABASE_ADMIN,
    }),
    async capability() {
      if (!ctx.started()) return unavailable.settingUp('wordpress', 'The provisioning driver is not started');
      return { available: true };
    },

    deploy: (input) =>
      withLock(input.id, async () => {
        const spec = checkSpec(input);
        const existing = await stateOf(spec.id);
        const { urls, sftpPassword } = await apply(spec, existing, existing?.domain ?? null);
        const names = instanceNames(spec.id);
        // No `database`: the site's own answers on its private network only, where no customer reaches
        // it (and no phpMyAdmin is offered here): the API shows the customer no host they cannot use.
        return {
          urls,
          ...(sftpPassword === undefined ? {} : { sftp: sftp.credentials(names, sftpPassword) }),
        };
      }),

    delete: (id) =>
      withLock(id, async () => {
        const state = await stateOf(id);
        sftp.disconnect(instanceNames(id));
        if (state) await removeAll(state.region, id, state.nodeId);
        await ctx.deleteLegacyBackups(id);
      }),

    suspend: (id) =>
      withLock(id, async () => {
        const state = await requireState(id);
        const names = instanceNames(id);
        sftp.disconnect(names);
        await scale(state.region.manager, names.service, 0);
        await scale(state.region.manager, names.dbService, 0);
        await doors.reload(state.region.id);
      }),

    resume: (id) =>
      withLock(id, async () => {
        const state = await requireState(id);
        const names = instanceNames(id);
        await scale(state.region.manager, names.dbService, 1);
        await scale(state.region.manager, names.service, 1);
        await waitForRunning(state.region, names.dbService);
        await waitForRunning(state.region, names.service);
        await doors.reload(state.region.id);
        await doors.waitFor(state.region.id, names.slug, '/', [200]);
      }),

    domains: {
      set: (id, input) =>
        withLock(id, async () => {
          const state = await requireState(id);
          const domain = input === null ? null : checkDomain(input, ctx.options.baseDomain);
          const names = instanceNames(id);
          const urls = doors.urls(state.region.id, names.slug, domain, 'wordpress');
          const [db, admin, salts] = await Promise.all([
            secretOf(state.region, id, 'db-password'),
            secretOf(state.region, id, 'admin-password'),
            secretOf(state.region, id, 'salts'),
          ]);
          const after = await applyService(
            state.region.manager,
            wordpressAppSpec(ctx, {
              names,
              region: state.region,
              nodeId: state.nodeId,
              content: volumeMount(
                await volumeNode(state.region, state.nodeId),
                names,
                'content',
                `${WP_ROOT}/wp-content`,
              ),
              labels: instanceLabels(id, 'wordpress', state.owner),
              spec: specOf(id, state),
              urls,
              domain,
              sftpHash: state.app.Spec.Labels?.[SFTP_LABEL],
              secrets: { db_password: db, admin_password: admin, salts },
            }),
          );
          await waitForRunning(state.region, names.service, { after });
          if (state.domain && state.domain !== domain)
            await doors.removeCertificates(state.region.id, state.domain);
          await doors.reload(state.region.id);
          await doors.waitFor(state.region.id, names.slug, '/', [200]);
          return urls;
        }),
      ...certificateOps(ctx, doors, 'Site'),
    },

    backups: wordpressBackups(ctx, requireState),

    storage: { usage: (id) => volumeStorage(ctx, id, 'content') },

    php: { versions: async () => ['8.2'] },
  };
}
