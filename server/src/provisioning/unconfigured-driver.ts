import { DEFAULT_REGION } from '@berth/openapi/rules';
import {
  capabilitiesOf,
  type Engines,
  oneRegion,
  type ProvisioningDriver,
  unavailableEngine,
} from './driver.ts';

const NOT_CONFIGURED = 'No provisioning driver is configured on this server';

/**
 * A driver that provides nothing: every type's engine is unavailable with `reason`. The app uses it
 * when none is given (route tests, the OpenAPI generator), so it never touches a database server by
 * accident.
 */
export function createUnconfiguredDriver(reason = NOT_CONFIGURED): ProvisioningDriver {
  const why = () => reason;
  const engines: Engines = {
    mysql: unavailableEngine('mysql', why),
    postgresql: unavailableEngine('postgresql', why),
    mongodb: unavailableEngine('mongodb', why),
    wordpress: unavailableEngine('wordpress', why),
    n8n: unavailableEngine('n8n', why),
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
