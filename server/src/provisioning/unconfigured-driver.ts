import { DEFAULT_REGION } from '@berth/openapi/rules';
import {
  capabilitiesOf,
  type Engines,
  oneRegion,
  type ProvisioningDriver,
  unavailableEngine,
} from './driver.ts';
import { type InstanceType, unavailable } from './instance-types.ts';

const NOT_CONFIGURED = 'No provisioning driver is configured on this server';

/**
 * A driver that provides nothing: every type's engine is "not offered on this server", with `detail`
 * for the operator. The app uses it when none is given (route tests, the OpenAPI generator), so it
 * never touches a database server by accident.
 */
export function createUnconfiguredDriver(detail = NOT_CONFIGURED): ProvisioningDriver {
  const notOffered = (type: InstanceType) =>
    unavailableEngine(type, () => unavailable.notOffered(type, detail));
  const engines: Engines = {
    mysql: notOffered('mysql'),
    postgresql: notOffered('postgresql'),
    mongodb: notOffered('mongodb'),
    wordpress: notOffered('wordpress'),
    n8n: notOffered('n8n'),
  };
  return {
    engine: (type) => engines[type],
    capabilities: () => capabilitiesOf(engines),
    regions: async () => oneRegion(DEFAULT_REGION),
    onStorageLimit: () => () => {},
    start: async () => {},
    stop: async () => {},
    health: async () => ({ ok: false, servers: {} }),
  };
}
