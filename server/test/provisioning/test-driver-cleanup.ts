import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { ProvisioningDriver } from '../../src/provisioning/driver.ts';
import type { ControlGroups } from '../../src/provisioning/local/host/control-groups.ts';
import { killLeftoverServers } from './leftover-servers.ts';
import { removeSiteUsersUnder } from './site-sandbox.ts';

/** Removes every control group under a test's own parent, then the parent itself (per hierarchy). */
export async function removeTestGroups(groups: ControlGroups): Promise<void> {
  for (const name of await groups.names()) await groups.remove(name).catch(() => {});
  for (const file of groups.joins('x')) await rmdir(path.dirname(path.dirname(file))).catch(() => {});
}

/**
 * The end of a test that ran a local driver under `root` with its own control group parent: the
 * driver stopped, servers a failure left behind killed, the site users, the groups and the folder gone.
 */
export async function cleanUpLocalDriver(
  driver: ProvisioningDriver | undefined,
  root: string,
  groups: ControlGroups,
): Promise<void> {
  await driver?.stop().catch(() => {});
  killLeftoverServers(root);
  await removeSiteUsersUnder(root);
  await removeTestGroups(groups);
  if (root) await rm(root, { recursive: true, force: true });
}
