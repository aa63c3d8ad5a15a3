// How the configuration (env.ts) becomes the provisioning driver: the one place where its settings turn
// into a driver and that driver's options, and where the host gets what the local driver runs from.
import path from 'node:path';
import type { ServerConfig } from './env.ts';
import type { LogLine } from './lib/error-reference.ts';
import {
  DEFAULT_RUNTIMES_DIR,
  installedN8nRuntime,
  installN8nRuntime,
} from './provisioning/apps/n8n/n8n-runtime.ts';
import type { ProvisioningDriver } from './provisioning/driver.ts';
import type { InstanceType } from './provisioning/instance-types.ts';
import {
  aptInstallLine,
  HOST_PACKAGES,
  installHostPackages,
  type LocalEngine,
  missingHostPackages,
  missingN8nPackages,
  missingPhpMyAdminPackages,
  missingSitePackages,
} from './provisioning/local/host/host-packages.ts';
import { createLocalDriver } from './provisioning/local/local-driver.ts';
import { createSwarmDriver } from './provisioning/swarm/swarm-driver.ts';
import type { SwarmDriverOptions } from './provisioning/swarm/swarm-options.ts';
import { createUnconfiguredDriver } from './provisioning/unconfigured-driver.ts';

type ProvisioningConfig = ServerConfig['provisioning'];

/**
 * The instance types the local driver's start may bring up: their deploys are accepted while it starts
 * (modules/instances/queue/driver-startup.ts).
 */
export const TYPES_THE_START_BRINGS: readonly InstanceType[] = ['mysql', 'postgresql', 'wordpress'];

/** The driver PROVISIONER names, with its options from the configuration. Nothing starts yet. */
export function createDriver(config: ProvisioningConfig, log: LogLine): ProvisioningDriver {
  if (config.driver === 'none')
    return createUnconfiguredDriver('Provisioning is turned off on this server (PROVISIONER=none)');
  if (config.driver === 'swarm') return createSwarmDriver(swarmOptions(config, log));
  const { sites } = config;
  return createLocalDriver({
    dataRoot: config.dataDir,
    region: config.localRegion,
    mysqlAdminUrl: config.mysqlAdminUrl,
    postgresAdminUrl: config.postgresAdminUrl,
    mongodbAdminUrl: config.mongodbAdminUrl,
    publicHost: config.publicHost,
    listenAddress: config.listenAddress,
    instanceTls: config.instanceTls,
    mysqlDiskMb: config.mysqlDiskMb,
    postgresDiskMb: config.postgresDiskMb,
    diskReserveMb: config.diskReserveMb,
    diskOvercommit: config.diskOvercommit,
    sites: {
      baseDomain: sites.baseDomain,
      listenHost: sites.listenHost,
      httpPort: sites.httpPort,
      httpsPort: sites.httpsPort,
      sftpPort: sites.sftpPort,
      tls: { issuer: sites.tls },
      diskMb: sites.diskMb,
      databaseMb: sites.databaseMb,
    },
    n8n: { diskMb: config.n8n.diskMb, egressAllow: config.tenantEgressAllow },
    log: (line) => log(`provisioning: ${line}`),
  });
}

/** The swarm driver's options (PROVISIONER=swarm): its regions' swarms, images and backups. */
function swarmOptions(config: ProvisioningConfig, log: LogLine): SwarmDriverOptions {
  const { swarm, sites } = config;
  if (!swarm) throw new Error('PROVISIONER=swarm is not configured (SWARM_REGIONS)');
  return {
    regions: swarm.regions,
    images: swarm.images as SwarmDriverOptions['images'],
    backupsDir: swarm.backupsDir,
    baseDomain: sites.baseDomain,
    httpPort: sites.httpPort,
    httpsPort: sites.httpsPort,
    tls: { issuer: sites.tls },
    disks: {
      wordpress: sites.diskMb,
      wordpressDatabase: sites.databaseMb,
      mysql: config.mysqlDiskMb,
      postgresql: config.postgresDiskMb,
      n8n: config.n8n.diskMb,
    },
    diskPolicy: { reserveMb: config.diskReserveMb, overcommit: config.diskOvercommit },
    egressAllow: config.tenantEgressAllow,
    encryptedOverlays: swarm.encryptedOverlays,
    sftp: {
      listenHost: sites.listenHost,
      port: sites.sftpPort ?? 2222,
      publicHost: config.publicHost,
      hostKeyFile: path.join(config.dataDir, 'swarm', 'sftp_host_key'),
    },
    log: (line) => log(`provisioning: ${line}`),
  };
}

/**
 * What the local driver runs from, before it starts: the Debian packages of its own servers (none for
 * engines given by an admin URL), installed when we run as root on Debian, otherwise the exact apt-get
 * line is printed and those types stay unavailable (the driver reports why); and the n8n runtime,
 * installed in the background when missing (about 7 minutes).
 */
export async function prepareHost(config: ServerConfig, log: LogLine): Promise<void> {
  // The swarm driver's hosts are its nodes: what they run from is the operator's (README: Scaling out).
  if (config.provisioning.driver !== 'local') return;
  await ensureHostPackages(config.provisioning, log);
  ensureN8nRuntime(config.installEnv, log);
}

async function ensureHostPackages(config: ProvisioningConfig, log: LogLine): Promise<void> {
  const { mysqlAdminUrl, postgresAdminUrl } = config;
  const engines = (Object.keys(HOST_PACKAGES) as LocalEngine[]).filter((engine) =>
    engine === 'mariadb' ? !mysqlAdminUrl : !postgresAdminUrl,
  );
  // WordPress sites need MariaDB (their tenants) and the site packages (Caddy, php-fpm, WordPress, …);
  // n8n instances pasta; MySQL instances' phpMyAdmin Debian's package.
  const missing = [
    ...new Set([
      ...missingHostPackages(engines),
      ...missingSitePackages(),
      ...missingN8nPackages(),
      ...missingPhpMyAdminPackages(),
    ]),
  ];
  if (missing.length === 0) return;
  const started = performance.now();
  try {
    log(`provisioning: installing the host packages ${missing.join(' ')}`);
    await installHostPackages(missing, (line) => log(`provisioning: ${line}`));
    log(
      `provisioning: installed ${missing.join(' ')} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    log(
      `provisioning: ${missing.join(' ')} missing and not installed (${(error as Error).message.split('\n')[0]}). ` +
        `As root run: ${aptInstallLine(missing)}. Until then those instance types (WordPress among them ` +
        'when a site package is missing) are unavailable, and the capabilities say why.',
    );
  }
}

/**
 * The n8n runtime (n8n-runtime.ts) when missing: installed in the background; until it is there n8n's
 * capability says why, and it becomes available once the install ends.
 */
function ensureN8nRuntime(installEnv: Record<string, string | undefined>, log: LogLine): void {
  if (installedN8nRuntime(DEFAULT_RUNTIMES_DIR)) return;
  log(
    `provisioning: installing the n8n runtime into ${DEFAULT_RUNTIMES_DIR} in the background (about 7 minutes)`,
  );
  // npm runs with the operator's environment (registry, proxy).
  installN8nRuntime(DEFAULT_RUNTIMES_DIR, installEnv, (line) => log(`n8n runtime: ${line}`)).then(
    (runtime) => log(`provisioning: the n8n runtime is ready in ${runtime.dir}`),
    (error: Error) =>
      log(
        `provisioning: the n8n runtime did not install (${error.message.split('\n')[0]}); run npm run install-n8n`,
      ),
  );
}
