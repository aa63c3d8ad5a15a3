import type { Migration } from 'kysely/migration';
import * as createAccounts from './20261122T000000-create-accounts.ts';

/** Every migration, in order. Add new ones at the end; never edit an old one. */
export const migrations: Record<string, Migration> = {
  '20261122T000000-create-accounts': createAccounts,
};
