import {
  type Capabilities,
  INSTANCE_TYPES,
  type InstanceType,
  type ProvisioningDriver,
  ProvisioningUnavailableError,
} from './driver.ts';

export const NOT_CONFIGURED = 'No provisioning driver is configured on this server';

/**
 * A driver that provides nothing: every type is unavailable with `reason`. The app uses it when none is
 * given (route tests, the OpenAPI generator), so it never touches a database server by accident.
 */
export function createUnconfiguredDriver(reason = NOT_CONFIGURED): ProvisioningDriver {
  const refuse = (type: InstanceType) => {
    throw new ProvisioningUnavailableError(type, reason);
  };
  return {
    capabilities: async () =>
      Object.fromEntries(INSTANCE_TYPES.map((type) => [type, { available: false, reason }])) as Capabilities,
    deployDatabase: async (spec) => refuse(spec.type),
    deleteDatabase: async (ref) => refuse(ref.type),
    suspendDatabase: async (ref) => refuse(ref.type),
    resumeDatabase: async (ref) => refuse(ref.type),
    changeDatabasePassword: async (ref) => refuse(ref.type),
    start: async () => {},
    stop: async () => {},
    health: async () => ({ ok: false, servers: {} }),
  };
}
