import {
  type Capabilities,
  INSTANCE_TYPES,
  type InstanceType,
  type ProvisioningDriver,
  ProvisioningUnavailableError,
  unavailable,
} from './driver.ts';

const NOT_CONFIGURED = 'No provisioning driver is configured on this server';

/**
 * A driver that provides nothing: every type is "not offered on this server", with `detail` for the
 * operator. The app uses it when none is given (route tests, the OpenAPI generator), so it never touches
 * a database server by accident.
 */
export function createUnconfiguredDriver(detail = NOT_CONFIGURED): ProvisioningDriver {
  const refuse = (type: InstanceType) => {
    throw new ProvisioningUnavailableError(type, unavailable.notOffered(type, detail));
  };
  return {
    capabilities: async () =>
      Object.fromEntries(
        INSTANCE_TYPES.map((type) => [type, unavailable.notOffered(type, detail)]),
      ) as Capabilities,
    deployDatabase: async (spec) => refuse(spec.type),
    deleteDatabase: async (ref) => refuse(ref.type),
    suspendDatabase: async (ref) => refuse(ref.type),
    resumeDatabase: async (ref) => refuse(ref.type),
    changeDatabasePassword: async (ref) => refuse(ref.type),
    phpVersions: async () => [],
    deploySite: async (spec) => refuse(spec.type),
    deployN8n: async () => refuse('n8n'),
    deleteSite: async () => refuse('wordpress'),
    suspendSite: async () => refuse('wordpress'),
    resumeSite: async () => refuse('wordpress'),
    setSiteDomain: async () => refuse('wordpress'),
    sslStatus: async () => refuse('wordpress'),
    requestSsl: async () => refuse('wordpress'),
    createBackup: async () => refuse('wordpress'),
    listBackups: async () => refuse('wordpress'),
    restoreBackup: async () => refuse('wordpress'),
    deleteBackup: async () => refuse('wordpress'),
    siteStorage: async () => refuse('wordpress'),
    start: async () => {},
    stop: async () => {},
    health: async () => ({ ok: false, servers: {} }),
  };
}
