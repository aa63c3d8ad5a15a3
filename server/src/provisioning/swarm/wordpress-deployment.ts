import { DEFAULT_RESOURCES } from '@berth/openapi/rules';
import { generateSalts } from '../apps/wordpress/salts.ts';
import { hashSecret } from '../apps/wordpress/sftp-server.ts';
import type { SiteSpec, SiteUrls } from '../engine.ts';
import { checkPassword, generatePassword } from '../tenant-names.ts';
import { databaseServiceSpec, instanceLabels } from './database-engine.ts';
import { FLAVORS } from './database-flavors.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import { placeInstance } from './node-agent.ts';
import type { Region } from './region.ts';
import {
  applyService,
  ensureNetwork,
  ensureSecret,
  instanceNames,
  LABEL,
  removeSecrets,
  sizeOf,
  waitForRunning,
} from './services.ts';
import { SFTP_LABEL } from './site-sftp.ts';
import type { SwarmContext } from './swarm-context.ts';
import { instanceDiskBytes, sizedVolume, volumeNode, volumeSizeMb } from './volumes.ts';
import { removeWebInstance, type WebState } from './web-instance.ts';
import { SITE_DB, WP_ROOT, wordpressAppSpec } from './wordpress-services.ts';

/**
 * Deploying a WordPress site on a swarm (wordpress-engine.ts): its network, secrets and both services,
 * waited for until the site answers through the front door; and removing all of it.
 */
export function wordpressDeployment(ctx: SwarmContext, doors: SwarmFrontDoors) {
  const appSpec = (input: Parameters<typeof wordpressAppSpec>[1]) => wordpressAppSpec(ctx, input);

  /** Creates or updates both services and waits until the site answers through the front door. */
  async function apply(
    spec: SiteSpec,
    existing: WebState | undefined,
    domain: string | null,
  ): Promise<{ urls: SiteUrls; sftpPassword: string | undefined }> {
    const names = instanceNames(spec.id);
    const region = existing?.region ?? ctx.region(spec.region);
    const owner = spec.owner ?? existing?.owner;
    const labels = instanceLabels(spec.id, 'wordpress', owner);
    const size = sizeOf(spec.resources, DEFAULT_RESOURCES);
    const dbSize = sizeOf(SITE_DB, SITE_DB);
    const nodeId =
      existing?.nodeId ??
      (
        await placeInstance(
          ctx,
          region,
          {
            memoryBytes: size.memoryBytes + dbSize.memoryBytes,
            nanoCpus: size.nanoCpus + dbSize.nanoCpus,
            diskBytes: instanceDiskBytes(ctx.options.disks, 'wordpress'),
          },
          spec.id,
        )
      ).ID;
    const databasePassword =
      spec.databasePassword === undefined ? generatePassword() : checkPassword(spec.databasePassword);
    // The SFTP password's hash stays on the service (the gateway checks logins against it); a redeploy
    // without one keeps the hash it has. Without a gateway, sites have no SFTP.
    const sftpPassword = ctx.options.sftp
      ? spec.sftpPassword === undefined
        ? existing?.app.Spec.Labels?.[SFTP_LABEL]
          ? undefined
          : generatePassword()
        : checkPassword(spec.sftpPassword)
      : undefined;
    const sftpHash =
      sftpPassword === undefined ? existing?.app.Spec.Labels?.[SFTP_LABEL] : await hashSecret(sftpPassword);
    try {
      await ensureNetwork(region.manager, names, {
        internal: true,
        labels,
        encrypted: ctx.options.encryptedOverlays ?? false,
      });
      await doors.connect(region.id, names.network);
      const dbSecret = await ensureSecret(region.manager, names, 'db-password', databasePassword, labels);
      const adminSecret = await ensureSecret(
        region.manager,
        names,
        'admin-password',
        spec.adminPassword,
        labels,
      );
      // The salts are made once: a redeploy must not sign everyone out.
      const saltsSecret =
        (
          await region.manager.listSecrets({
            filters: { label: [`${LABEL.instance}=${spec.id}`, `${LABEL.role}=salts`] },
          })
        ).map((s) => ({ SecretID: s.ID, SecretName: s.Spec?.Name ?? '' }))[0] ??
        (await ensureSecret(region.manager, names, 'salts', JSON.stringify(generateSalts()), labels));
      const node = await volumeNode(region, nodeId);
      const { disks } = ctx.options;
      const [dbVolume, content] = await Promise.all([
        sizedVolume(
          region,
          node,
          names,
          'db',
          FLAVORS.mysql.dataPath,
          volumeSizeMb(disks, 'wordpress', 'db'),
        ),
        sizedVolume(
          region,
          node,
          names,
          'content',
          `${WP_ROOT}/wp-content`,
          volumeSizeMb(disks, 'wordpress', 'content'),
        ),
      ]);
      const dbAfter = await applyService(
        region.manager,
        databaseServiceSpec({
          flavor: FLAVORS.mysql,
          volume: dbVolume,
          names,
          service: names.dbService,
          image: ctx.image('mariadb'),
          size: dbSize,
          nodeId,
          region: region.id,
          labels: { ...labels, [LABEL.role]: 'db' },
          secret: dbSecret,
          tenant: { database: 'wordpress', user: 'wordpress' },
          networks: [names.network],
        }),
      );
      const urls = doors.urls(region.id, names.slug, domain, 'wordpress');
      const appAfter = await applyService(
        region.manager,
        appSpec({
          names,
          region,
          nodeId,
          content,
          labels,
          spec,
          urls,
          domain,
          sftpHash,
          secrets: { db_password: dbSecret, admin_password: adminSecret, salts: saltsSecret },
        }),
      );
      const t0 = performance.now();
      const phases: string[] = [];
      const phase = (name: string) =>
        phases.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await waitForRunning(region, names.dbService, { after: dbAfter });
      ctx.promises.delete(spec.id);
      phase('database healthy');
      await waitForRunning(region, names.service, { after: appAfter });
      phase('site healthy');
      await removeSecrets(region.manager, spec.id, [
        dbSecret.SecretName,
        adminSecret.SecretName,
        saltsSecret.SecretName,
      ]);
      await doors.reload(region.id);
      phase('route loaded');
      await doors.waitFor(region.id, names.slug, '/', [200]);
      phase('200 through the front door');
      ctx.log(`WordPress ${spec.id} in ${region.id}: ${phases.join(', ')}`);
      return { urls, sftpPassword };
    } catch (error) {
      ctx.promises.delete(spec.id);
      // A first deploy that cannot run leaves nothing behind (a retry starts over); a failed clean-up is
      // logged, and the deploy's own error is what the job reports.
      if (!existing) {
        await removeAll(region, spec.id, nodeId).catch((cleanup: Error) =>
          ctx.log(`clean-up after a failed deploy of ${spec.id}: ${cleanup.message}`),
        );
      }
      throw error;
    }
  }

  const removeAll = (region: Region, id: string, nodeId: string | undefined) => {
    const names = instanceNames(id);
    return removeWebInstance(doors, region, id, nodeId, {
      services: [names.service, names.dbService],
      volumes: [names.volume('content'), names.volume('db')],
    });
  };

  return { apply, removeAll };
}
