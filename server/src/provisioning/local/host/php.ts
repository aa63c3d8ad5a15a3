import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';

/**
 * What every PHP the local driver runs for tenants shares (WordPress sites, phpMyAdmin): the versions
 * installed; what that PHP may do is apps/php-rules.ts (both drivers').
 */

/** PHP versions with both php-fpm<v> and php<v> (the CLI runs the install) and mysqli, newest first. */
export function installedPhpVersions(): string[] {
  if (!existsSync('/usr/sbin')) return [];
  return readdirSync('/usr/sbin')
    .map((file) => /^php-fpm(\d+\.\d+)$/.exec(file)?.[1])
    .filter((version): version is string => version !== undefined)
    .filter((v) => existsSync(`/usr/bin/php${v}`) && existsSync(`/etc/php/${v}/mods-available/mysqli.ini`))
    .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
}

export const phpCli = (version: string): string => `/usr/bin/php${version}`;

/** Resolves once something accepts connections on the unix socket. */
export function socketAccepts(socket: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    connection.once('connect', () => {
      connection.destroy();
      resolve();
    });
    connection.once('error', reject);
  });
}
