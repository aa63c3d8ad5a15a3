import { ValidationError } from '../../lib/errors.ts';
import type { InstanceEngine, Resources, SiteSpec, SiteUrls } from '../engine.ts';
import { unavailable } from '../instance-types.ts';
import { checkDomain } from '../local/front-door/domain-names.ts';
import { checkSiteSpec } from '../local/wordpress/site-spec.ts';
import { generateSalts } from '../local/wordpress/wp-config.ts';
import { checkPassword, generatePassword } from '../tenant-names.ts';
import { databaseServiceSpec, instanceLabels } from './database-engine.ts';
import { FLAVORS } from './database-flavors.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import { SERVICE_UIDS } from './image-recipes.ts';
import { execIn, runningContainer } from './node-exec.ts';
import { choosePlacement, type Region } from './region.ts';
import {
  applyService,
  ensureNetwork,
  ensureSecret,
  type InstanceNames,
  instanceNames,
  LABEL,
  removeSecrets,
  resourcesSpec,
  type ServiceInfo,
  scale,
  seconds,
  sizeOf,
  tmpfsMount,
  volumeMount,
  waitForRunning,
} from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import {
  appResources,
  certificateOps,
  removeWebInstance,
  requireWebState,
  secretOf,
  type WebState,
  webState,
} from './web-instance.ts';

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

const SITE_DEFAULTS: Resources = { memoryMb: 512, cpus: 0.5 };
const SITE_DB: Resources = { memoryMb: 256, cpus: 0.25 };
const WP_ROOT = '/var/www/wordpress';
const WWW = String(SERVICE_UIDS['www-data']);

/** The local driver's checks of a site spec (title, admin, passwords), and the one PHP version here. */
function checkSpec(spec: SiteSpec): SiteSpec {
  const { title } = checkSiteSpec(spec);
  if (spec.phpVersion !== '8.2') throw new ValidationError('PHP 8.2 is the version sites run on here');
  return { ...spec, title };
}

export function wordpressEngine(ctx: SwarmContext, doors: SwarmFrontDoors): InstanceEngine<SiteSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  const stateOf = (id: string) => webState(ctx, id);
  const requireState = (id: string) => requireWebState(ctx, id, 'Site');

  /** The app service's environment value `name` (what it was deployed with). */
  const envOf = (service: ServiceInfo, name: string) => {
    const template = service.Spec.TaskTemplate;
    const env = template && 'ContainerSpec' in template ? (template.ContainerSpec?.Env ?? []) : [];
    return env.find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
  };

  function appSpec(input: {
    names: InstanceNames;
    region: Region;
    nodeId: string;
    labels: Record<string, string>;
    spec: Pick<SiteSpec, 'title' | 'adminUser' | 'adminEmail' | 'resources'>;
    urls: SiteUrls;
    domain: string | null;
    secrets: Record<string, { SecretID: string; SecretName: string }>;
  }) {
    const size = sizeOf(input.spec.resources, SITE_DEFAULTS);
    return {
      Name: input.names.service,
      Labels: {
        ...input.labels,
        [LABEL.role]: 'app',
        [LABEL.node]: input.nodeId,
        [LABEL.slug]: input.names.slug,
        [LABEL.domain]: input.domain ?? '',
      },
      TaskTemplate: {
        ContainerSpec: {
          Image: ctx.image('wordpress', 'wordpress'),
          Command: ['/usr/local/bin/berth-wordpress'],
          User: 'www-data',
          Env: [
            `BERTH_DB_HOST=${input.names.dbService}:3306`,
            `BERTH_SITE_URL=${input.urls.url}`,
            `BERTH_TEMPORARY_URL=${input.urls.temporaryUrl}`,
            `BERTH_SITE_TITLE=${input.spec.title}`,
            `BERTH_ADMIN_USER=${input.spec.adminUser}`,
            `BERTH_ADMIN_EMAIL=${input.spec.adminEmail}`,
          ],
          Labels: { [LABEL.instance]: input.names.id },
          // WordPress core and the system are read-only; the site writes only its volume and tmpfs.
          ReadOnly: true,
          Mounts: [volumeMount(input.names, 'content', `${WP_ROOT}/wp-content`), tmpfsMount('/tmp', 128)],
          Secrets: Object.entries(input.secrets).map(([name, secret]) => ({
            ...secret,
            File: { Name: name, UID: WWW, GID: WWW, Mode: 0o400 },
          })),
          HealthCheck: {
            Test: [
              'CMD',
              'php',
              '-r',
              'exit(@file_get_contents("http://127.0.0.1:8080/.berth-health") === "ok\\n" ? 0 : 1);',
            ],
            Interval: seconds(1),
            Timeout: seconds(5),
            Retries: 5,
            StartPeriod: seconds(180),
          },
          StopGracePeriod: seconds(10),
          CapabilityDrop: ['ALL'],
        },
        Resources: resourcesSpec(size),
        RestartPolicy: { Condition: 'any', Delay: seconds(2) },
        Placement: { Constraints: [`node.labels.region==${input.region.id}`, `node.id==${input.nodeId}`] },
        Networks: [{ Target: input.names.network }],
      },
      Mode: { Replicated: { Replicas: 1 } },
      UpdateConfig: { Parallelism: 1, Order: 'stop-first' },
      EndpointSpec: { Mode: 'dnsrr' },
    };
  }

  /** Creates or updates both services and waits until the site answers through the front door. */
  async function apply(
    spec: SiteSpec,
    existing: WebState | undefined,
    domain: string | null,
  ): Promise<{ urls: SiteUrls; databasePassword: string }> {
    const names = instanceNames(spec.id);
    const region = existing?.region ?? ctx.region(spec.region);
    const owner = spec.owner ?? existing?.owner;
    const labels = instanceLabels(spec.id, 'wordpress', owner);
    const size = sizeOf(spec.resources, SITE_DEFAULTS);
    const dbSize = sizeOf(SITE_DB, SITE_DB);
    const nodeId =
      existing?.nodeId ??
      (
        await choosePlacement(region, {
          memoryBytes: size.memoryBytes + dbSize.memoryBytes,
          nanoCpus: size.nanoCpus + dbSize.nanoCpus,
        })
      ).ID;
    const databasePassword =
      spec.databasePassword === undefined ? generatePassword() : checkPassword(spec.databasePassword);
    try {
      await ensureNetwork(region.manager, names, { internal: true, labels });
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
      const dbAfter = await applyService(
        region.manager,
        databaseServiceSpec({
          flavor: FLAVORS.mysql,
          names,
          service: names.dbService,
          image: ctx.image('mariadb', 'wordpress'),
          size: dbSize,
          nodeId,
          region: region.id,
          labels: { ...labels, [LABEL.role]: 'db' },
          secret: dbSecret,
          tenant: { database: 'wordpress', user: 'wordpress' },
          networks: [names.network],
        }),
      );
      const urls = doors.urls(region.id, names.slug, domain);
      const appAfter = await applyService(
        region.manager,
        appSpec({
          names,
          region,
          nodeId,
          labels,
          spec,
          urls,
          domain,
          secrets: { db_password: dbSecret, admin_password: adminSecret, salts: saltsSecret },
        }),
      );
      const t0 = performance.now();
      const phases: string[] = [];
      const phase = (name: string) =>
        phases.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await waitForRunning(region, names.dbService, { after: dbAfter });
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
      return { urls, databasePassword };
    } catch (error) {
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

  /** The deployed spec again, from the app service (a domain change keeps everything else). */
  function specOf(id: string, state: WebState): SiteSpec {
    return {
      id,
      owner: state.owner,
      title: envOf(state.app, 'BERTH_SITE_TITLE') ?? '',
      adminUser: envOf(state.app, 'BERTH_ADMIN_USER') ?? '',
      adminEmail: envOf(state.app, 'BERTH_ADMIN_EMAIL') ?? '',
      adminPassword: '',
      phpVersion: '8.2',
      resources: appResources(state.app),
    };
  }

  const dbTarget = async (id: string) =>
    runningContainer((await requireState(id)).region, instanceNames(id).dbService);
  const appTarget = async (id: string) =>
    runningContainer((await requireState(id)).region, instanceNames(id).service);

  return {
    type: 'wordpress',
    async capability() {
      if (!ctx.started()) return unavailable.settingUp('wordpress', 'The provisioning driver is not started');
      return { available: true };
    },

    deploy: (input) =>
      withLock(input.id, async () => {
        const spec = checkSpec(input);
        const existing = await stateOf(spec.id);
        const { urls, databasePassword } = await apply(spec, existing, existing?.domain ?? null);
        return {
          urls,
          database: {
            host: instanceNames(spec.id).dbService,
            port: 3306,
            database: 'wordpress',
            user: 'wordpress',
            password: databasePassword,
          },
        };
      }),

    delete: (id) =>
      withLock(id, async () => {
        const state = await stateOf(id);
        if (state) await removeAll(state.region, id, state.nodeId);
        await ctx.backups.deleteAll(id);
      }),

    suspend: (id) =>
      withLock(id, async () => {
        const state = await requireState(id);
        const names = instanceNames(id);
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
          const urls = doors.urls(state.region.id, names.slug, domain);
          const [db, admin, salts] = await Promise.all([
            secretOf(state.region, id, 'db-password'),
            secretOf(state.region, id, 'admin-password'),
            secretOf(state.region, id, 'salts'),
          ]);
          const after = await applyService(
            state.region.manager,
            appSpec({
              names,
              region: state.region,
              nodeId: state.nodeId,
              labels: instanceLabels(id, 'wordpress', state.owner),
              spec: specOf(id, state),
              urls,
              domain,
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

    backups: {
      create: (id, input) =>
        withLock(id, async () => {
          const db = await dbTarget(id);
          const app = await appTarget(id);
          const dump = FLAVORS.mysql.dump('wordpress');
          const count = FLAVORS.mysql.countTables('wordpress');
          return ctx.backups.create(
            id,
            input,
            [
              {
                name: 'db.sql.gz',
                write: (sink) => execIn(db, dump.cmd, { user: dump.user, stdout: sink }).then(() => {}),
              },
              {
                name: 'files.tar.gz',
                write: (sink) =>
                  execIn(app, ['tar', '-C', WP_ROOT, '-cf', '-', 'wp-content'], {
                    user: 'www-data',
                    stdout: sink,
                  }).then(() => {}),
              },
            ],
            async () => ({ tables: Number((await execIn(db, count.cmd, { user: count.user })).trim()) }),
          );
        }),
      list: (id) => ctx.backups.list(id),
      restore: (id, backupId) =>
        withLock(id, async () => {
          const backup = await ctx.backups.open(id, backupId);
          const db = await dbTarget(id);
          const app = await appTarget(id);
          const recreate = FLAVORS.mysql.recreate('wordpress', 'wordpress');
          await execIn(db, recreate.cmd, { user: recreate.user });
          const load = FLAVORS.mysql.load('wordpress', 'wordpress');
          await execIn(db, load.cmd, { user: load.user, stdin: backup.read('db.sql.gz') });
          // As www-data, inside the site's container: the files are only ever the site's own.
          await execIn(
            app,
            [
              'sh',
              '-ec',
              `cd ${WP_ROOT}/wp-content && find . -mindepth 1 -maxdepth 1 -exec rm -rf {} + && tar -xf - -C ${WP_ROOT}`,
            ],
            { user: 'www-data', stdin: backup.read('files.tar.gz') },
          );
          const count = FLAVORS.mysql.countTables('wordpress');
          const tables = Number((await execIn(db, count.cmd, { user: count.user })).trim());
          if (tables !== backup.manifest.check.tables) {
            throw new Error(
              `Restore of ${backupId} incomplete: ${tables} tables, the backup had ${backup.manifest.check.tables}`,
            );
          }
        }),
      delete: (id, backupId) => ctx.backups.delete(id, backupId),
    },

    php: { versions: async () => ['8.2'] },
  };
}
