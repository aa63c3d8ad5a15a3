import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RegionId } from '@berth/openapi/rules';
import { DEFAULT_RUNTIMES_DIR, missingRuntimeReason } from '../../src/provisioning/apps/n8n/n8n-runtime.ts';
import { caddyPaths } from '../../src/provisioning/local/front-door/caddy.ts';
import { tenantNames } from '../../src/provisioning/tenant-names.ts';
import { startTestProvisioning } from '../instances-harness.ts';
import { adminCli } from '../provisioning/db-clients.ts';
import { runCommand } from '../provisioning/site-clients.ts';
import type { ContractHarness } from './harness.ts';

/** The last lines of each database server's and site's own log (why one did not start). */
function serverLogs(root: string): string[] {
  const dir = path.join(root, 'logs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^(db|php|pma)-.*\.log$/.test(name))
    .map((name) => {
      const lines = readFileSync(path.join(dir, name), 'utf8').trim().split('\n').slice(-15);
      return `--- ${name}\n${lines.join('\n')}`;
    });
}

/** Small disks: quick to make, and the storage figure must name them exactly. */
const DISK_MB = { mysql: 256, postgresql: 256, wordpress: 512, n8n: 512 };

/**
 * The local driver as main.ts builds it (databases on servers of their own, Caddy, WordPress, n8n from
 * the host's runtime, phpMyAdmin), on a data root and a control group parent of its own. Fails naming
 * the command when n8n's runtime is missing (`npm run install-n8n`): the contract must not look green
 * without it.
 */
export const localHarness: ContractHarness = {
  label: 'local',
  async start() {
    const missing = missingRuntimeReason(DEFAULT_RUNTIMES_DIR);
    if (missing) throw new Error(missing);
    const prov = await startTestProvisioning({
      sites: true,
      databaseServers: 'own',
      siteDiskMb: DISK_MB.wordpress,
      mysqlDiskMb: DISK_MB.mysql,
      postgresDiskMb: DISK_MB.postgresql,
      n8nDiskMb: DISK_MB.n8n,
      cgroupParent: `berth-contract-${process.pid}`,
    });
    const { root, driver, groups } = prov;
    const region = (await driver.regions()).find((r) => r.available)?.id;
    if (!region) throw new Error('the local driver serves no region');
    return {
      driver,
      region: region as RegionId,
      frontDoor: '127.0.0.1',
      domainCa: () => caddyPaths(root).rootCertificate,
      diskMb: DISK_MB,
      // The driver's own data: its state files, servers' data, keys and certificates.
      privatePaths: [root, path.join(root, 'site-state'), path.join(root, 'sftp', 'host_key'), '/root'],
      log: () => [prov.logs.join('\n'), ...serverLogs(root)].join('\n'),
      stop: prov.stop,

      async leftovers(id) {
        const key = id.replaceAll('-', '').slice(0, 12);
        const tenant = tenantNames(id);
        const names = [id, key, tenant.database, tenant.user];
        const named = (text: string) => names.some((name) => text.includes(name));
        const left: string[] = [];
        // Files and folders named after it under the data root (not inside other tenants' disks).
        const find = await runCommand(
          '/usr/bin/find',
          [
            root,
            '-xdev',
            '(',
            ...names.flatMap((name, i) => [...(i ? ['-o'] : []), '-name', `*${name}*`]),
            ')',
          ],
          { timeoutMs: 120_000 },
        );
        left.push(
          ...find.stdout
            .split('\n')
            .filter(Boolean)
            .map((file) => `file ${file}`),
        );
        // Its disk: mounted, or attached to a loop device.
        for (const line of readFileSync('/proc/mounts', 'utf8').split('\n'))
          if (named(line)) left.push(`mount ${line}`);
        const loops = await runCommand('/usr/sbin/losetup', ['-a']);
        for (const line of loops.stdout.split('\n'))
          if (line.includes(root) && named(line)) left.push(`loop ${line}`);
        // Its users, processes and control group.
        for (const line of readFileSync('/etc/passwd', 'utf8').split('\n'))
          if (named(line.split(':')[0] ?? '')) left.push(`user ${line}`);
        for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
          let command = '';
          try {
            command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
          } catch {}
          if (named(command)) left.push(`process ${pid} ${command}`);
        }
        for (const name of (await groups?.names()) ?? []) if (named(name)) left.push(`control group ${name}`);
        // The front door's routes and certificates.
        const caddy = caddyPaths(root).configFile;
        if (existsSync(caddy) && named(readFileSync(caddy, 'utf8')))
          left.push(`front door route in ${caddy}`);
        // A database or user on the shared servers (WordPress sites' databases live there).
        const mysql = await adminCli(
          'mysql',
          root,
          `SELECT CONCAT('database ', SCHEMA_NAME) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${tenant.database}' UNION SELECT CONCAT('user ', User) FROM mysql.user WHERE User = '${tenant.user}'`,
        );
        left.push(
          ...mysql.stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => `shared MariaDB ${line}`),
        );
        return left;
      },
    };
  },
};
