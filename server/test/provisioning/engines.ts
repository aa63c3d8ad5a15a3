import type { ProvisioningDriver } from '../../src/provisioning/driver.ts';
import type {
  DatabaseCredentials,
  DatabaseSpec,
  InstanceEngine,
  N8nSpec,
  SftpCredentials,
  SiteSpec,
  SiteUrls,
  SpecOf,
} from '../../src/provisioning/engine.ts';
import type { InstanceType } from '../../src/provisioning/instance-types.ts';

/**
 * Engine calls as the provisioning tests make them: each answers the part of the deployment the test
 * checks, and fails loudly when the engine lacks it (an optional capability or a result part).
 */

/** An optional capability of an engine, or a failed test when the engine has none. */
export function required<T>(capability: T | undefined, what = 'the capability'): T {
  if (capability === undefined) throw new Error(`The engine lacks ${what}`);
  return capability;
}

/** Deploys a database instance; answers its credentials. */
export async function deployDatabase(
  driver: ProvisioningDriver,
  type: 'mysql' | 'postgresql' | 'mongodb',
  spec: DatabaseSpec,
): Promise<DatabaseCredentials> {
  return required((await driver.engine(type).deploy(spec)).database, 'database credentials');
}

/** A deployed WordPress site as the tests check it: addresses, SFTP login and database side by side. */
export type DeployedSite = SiteUrls & { sftp: SftpCredentials; database: DatabaseCredentials };

/** Deploys a WordPress site; answers its addresses, SFTP login and database. */
export async function deploySite(driver: ProvisioningDriver, spec: SiteSpec): Promise<DeployedSite> {
  const deployment = await driver.engine('wordpress').deploy(spec);
  return {
    ...required(deployment.urls, 'addresses'),
    sftp: required(deployment.sftp, 'an SFTP login'),
    database: required(deployment.database, 'database credentials'),
  };
}

/** Deploys an n8n instance; answers its addresses. */
export async function deployN8n(driver: ProvisioningDriver, spec: N8nSpec): Promise<SiteUrls> {
  return required((await driver.engine('n8n').deploy(spec)).urls, 'addresses');
}

/**
 * The driver with some operations of one type's engine replaced (a test making one type's deploy answer
 * otherwise than the memory driver's hooks can, as a driver still starting); every other engine and call
 * is the driver's own, and its capabilities say what the replaced engine's capability() says.
 */
export function withEngine<T extends InstanceType>(
  driver: ProvisioningDriver,
  type: T,
  replace: (engine: InstanceEngine<SpecOf[T]>) => Partial<InstanceEngine<SpecOf[T]>>,
): ProvisioningDriver {
  const engine = driver.engine(type);
  const replaced = { ...engine, ...replace(engine) };
  return {
    ...driver,
    capabilities: async () => ({ ...(await driver.capabilities()), [type]: await replaced.capability() }),
    engine: <U extends InstanceType>(wanted: U) =>
      (wanted === (type as InstanceType) ? replaced : driver.engine(wanted)) as InstanceEngine<SpecOf[U]>,
  };
}
