import { INSTANCE_TYPE_CATALOGUE } from '@berth/openapi/rules';
import type { DatabaseType } from '../../../provisioning/instance-types.ts';
import { baseSpecOf, type InstanceKind } from './instance-kind.ts';

/**
 * A database (MySQL, PostgreSQL, MongoDB): deployed with nothing but its resources, it keeps no
 * settings; its secret is its password; `/access` gives its connection details.
 */
export function databaseKind<T extends DatabaseType>(type: T): InstanceKind<T> {
  return {
    type,
    entry: INSTANCE_TYPE_CATALOGUE[type],
    access: 'database',
    ownKey: false,
    deployFields: async () => ({ settings: null, secret: {} }),
    request: (row, secret) => ({
      type,
      spec: { ...baseSpecOf(row), password: secret.password },
    }),
    shown: () => ({}),
    redeployFields: async () => ({}),
  };
}
