import type { InstanceType } from '../../../provisioning/instance-types.ts';
import { databaseKind } from './database.kind.ts';
import type { InstanceKind } from './instance-kind.ts';
import { n8nKind } from './n8n.kind.ts';
import { wordpressKind } from './wordpress.kind.ts';

/**
 * Every instance type's kind, by type: a type missing here, or from the shared catalogue its kind's
 * `entry` comes from, fails to compile; the instances service and the public API ask `kindOf(row.type)`, never `if (type === …)`.
 */
const KINDS: { readonly [T in InstanceType]: InstanceKind<T> } = {
  mysql: databaseKind('mysql'),
  postgresql: databaseKind('postgresql'),
  mongodb: databaseKind('mongodb'),
  wordpress: wordpressKind,
  n8n: n8nKind,
};

/** Any type's kind: its methods answer for that very type (a deploy request's `type` and `spec` agree). */
export type AnyKind = (typeof KINDS)[InstanceType];

/** The kind of `type`. */
export const kindOf = (type: InstanceType): AnyKind => KINDS[type];
