import { readFileSync } from 'node:fs';
import { mariadbPaths } from '../../src/provisioning/local/databases/mariadb-server.ts';
import { systemUser } from '../../src/provisioning/local/host/host.ts';
import { siteNames, sitePaths } from '../../src/provisioning/local/wordpress/site-names.ts';
import { type SandboxSite, sandboxEtcDir } from '../../src/provisioning/local/wordpress/site-sandbox.ts';
import { runCommand } from './site-clients.ts';

/**
 * The sandbox of a deployed site under the driver root `root`, as the driver builds it. `joins`: its
 * control group's cgroup.procs files, for a probe that must run inside the site's limits (by default
 * probes run beside them).
 */
export function siteSandbox(root: string, id: string, joins: readonly string[] = []): SandboxSite {
  const { key, unixUser } = siteNames(id);
  const user = systemUser(unixUser);
  if (!user) throw new Error(`site user ${unixUser} missing`);
  return {
    key,
    user,
    disk: sitePaths(root, id).dir,
    etcDir: sandboxEtcDir(root, key),
    mysqlSocket: mariadbPaths(root).socket,
    joins,
  };
}

/** Removes the site users a failed test left (their homes are under `root`). */
export async function removeSiteUsersUnder(root: string): Promise<void> {
  if (!root) return;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , , , , home] = line.split(':');
    if (name && /^(wp|n8n|db|pma)_/.test(name) && home?.startsWith(root))
      await runCommand('/usr/sbin/userdel', [name]);
  }
}
