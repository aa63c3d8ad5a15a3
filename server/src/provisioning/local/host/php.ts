import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';

/** What every PHP the local driver runs for tenants shares (WordPress sites, phpMyAdmin): versions, bans. */

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

/**
 * Functions the PHP run for tenants (WordPress sites, phpMyAdmin) never gets: running programs (the
 * sandbox has nothing worth running, but no program runs at all), changing the environment of a later program (putenv + mail was the classic
 * open_basedir escape), mail (no MTA; WordPress reports the failure), loading extensions, and every
 * posix_* function but the name and id lookups WordPress uses (POSIX_KEPT).
 */
export const PHP_DISABLED_FUNCTIONS = [
  'exec',
  'passthru',
  'shell_exec',
  'system',
  'proc_open',
  'popen',
  'pcntl_exec',
  'pcntl_fork',
  'putenv',
  'mail',
  'mb_send_mail',
  'dl',
  // Making FIFOs and device nodes (a FIFO served by the front door blocks it: issue 28; the sandbox's
  // seccomp filter refuses them too).
  'posix_mkfifo',
  'posix_mknod',
  // Changing process or user state: signals, ids, groups, sessions, process groups, limits.
  'posix_kill',
  'posix_setuid',
  'posix_setgid',
  'posix_seteuid',
  'posix_setegid',
  'posix_initgroups',
  'posix_setsid',
  'posix_setpgid',
  'posix_setrlimit',
  // Revealing process, session and terminal state (the kernel's version too; probing for processes).
  'posix_getpgid',
  'posix_getsid',
  'posix_getpgrp',
  'posix_getppid',
  'posix_getgroups',
  'posix_getlogin',
  'posix_getrlimit',
  'posix_times',
  'posix_uname',
  'posix_ctermid',
  'posix_ttyname',
  'posix_isatty',
];

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
