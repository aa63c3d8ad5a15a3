import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { launchInGroup } from '../host/control-groups.ts';
import type { OsUser } from '../host/host.ts';
import { BWRAP, type SandboxIo, type SandboxResult, settleSandboxed } from '../host/sandbox-process.ts';
import { SECCOMP_ARGS, spawnSandbox } from '../host/seccomp.ts';
import { PHPMYADMIN_APP, PMA_INSIDE, PMA_TMP_MB } from './phpmyadmin-files.ts';

/**
 * The sandbox of a MySQL instance's phpMyAdmin. phpMyAdmin is PHP on the open internet holding a
 * customer's database password, so like a WordPress site it runs in bubblewrap *as a user of its own*
 * (`pma_<key>`, not the database server's user, not root), with new user, mount, PID, IPC, UTS and
 * cgroup namespaces, nested user namespaces off and the system call filter of every tenant sandbox
 * (seccomp.ts). It sees a read-only root with only `/usr` (Debian's phpMyAdmin and PHP), `/etc/php`,
 * the CA bundle and time zone, a passwd/group naming only its user, its configuration (read-only at
 * /etc/phpmyadmin), the folder of its FastCGI socket (/run/php) and a /tmp of PMA_TMP_MB in memory.
 * Nothing of the host's data root, no database's files, no other tenant exists there.
 *
 * Network: phpMyAdmin must reach one thing, its instance's server, which listens on the host. pasta
 * (Debian `passt`, as the phpMyAdmin user) gives the sandbox a network namespace of its own with no
 * interface configured (no address, no route: nothing outside is reachable) and one forwarded port:
 * `-T <port>` splices connections to the namespace's 127.0.0.1:<port> to the host's 127.0.0.1:<port>,
 * the instance's server. Every other port of the host (the platform's database, other instances'
 * servers, Caddy's admin API, the API) and every other address stay unreachable; nothing is forwarded
 * inward (the front door reaches php-fpm through its unix socket).
 */

const PASTA = '/usr/bin/pasta';
const PRLIMIT = '/usr/bin/prlimit';

export interface PhpMyAdminSandbox {
  user: OsUser;
  /** Root-owned: config.inc.php (root, group of the user, 640), php-fpm.conf, ca.pem, passwd, group. */
  etcDir: string;
  /** The user's (group of the front door, 750): php.sock. */
  runDir: string;
  /** The instance server's port, the one port forwarded. */
  port: number;
  /** The cgroup.procs files of its control group (empty without control groups). */
  joins: readonly string[];
}

/** Process limits: a few workers, bounded files (the log included). */
const LIMITS = ['--nproc=64', '--nofile=1024', '--core=0', `--fsize=${64 * 1024 * 1024}`];

const optionalEtc = ['/etc/ssl/certs', '/etc/localtime', '/etc/timezone'];

/** Why phpMyAdmin cannot run on this host, if so (for the operator's log). */
export function phpMyAdminMissing(): string | undefined {
  if (!existsSync(path.join(PHPMYADMIN_APP, 'index.php')))
    return 'phpMyAdmin needs the host package phpmyadmin';
  if (!existsSync(PASTA)) return 'phpMyAdmin needs the host package passt (pasta gives it its network)';
  if (!existsSync('/dev/net/tun')) return 'phpMyAdmin needs /dev/net/tun (pasta gives it its network)';
  if ((statSync('/dev/net/tun').mode & 0o006) !== 0o006)
    return 'phpMyAdmin needs /dev/net/tun usable by its user (chmod 666; n8n instances set it)';
  return undefined;
}

function pastaArgs(port: number): string[] {
  // No --config-net: the namespace's interface stays down, without address or route.
  return ['-4', '-q', '-f', '-t', 'none', '-u', 'none', '-T', String(port), '-U', 'none', '--'];
}

function bwrapArgs(sandbox: PhpMyAdminSandbox): string[] {
  return [
    ...SECCOMP_ARGS,
    '--unshare-user',
    '--uid',
    String(sandbox.user.uid),
    '--gid',
    String(sandbox.user.gid),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--disable-userns',
    '--new-session',
    '--die-with-parent',
    '--hostname',
    'phpmyadmin',
    '--ro-bind',
    '/usr',
    '/usr',
    ...['bin', 'sbin', 'lib', 'lib64'].flatMap((dir) => ['--symlink', `usr/${dir}`, `/${dir}`]),
    '--ro-bind',
    '/etc/php',
    '/etc/php',
    ...optionalEtc.filter((file) => existsSync(file)).flatMap((file) => ['--ro-bind', file, file]),
    ...['passwd', 'group'].flatMap((file) => ['--ro-bind', path.join(sandbox.etcDir, file), `/etc/${file}`]),
    '--ro-bind',
    sandbox.etcDir,
    PMA_INSIDE.etc,
    '--bind',
    sandbox.runDir,
    PMA_INSIDE.run,
    '--size',
    String(PMA_TMP_MB * 1024 * 1024),
    '--tmpfs',
    PMA_INSIDE.tmp,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--chdir',
    PHPMYADMIN_APP,
    '--remount-ro',
    '/',
  ];
}

/**
 * prlimit → pasta → bwrap → `command`, started as the phpMyAdmin user in its control group
 * (launchInGroup). `title`: the command line the running process shows (prlimit execs pasta).
 */
export function phpMyAdminCommand(
  sandbox: PhpMyAdminSandbox,
  command: string[],
): { command: string; args: string[]; uid?: number; gid?: number; title: string } {
  const pasta = [PASTA, ...pastaArgs(sandbox.port), BWRAP, ...bwrapArgs(sandbox), '--', ...command];
  return {
    ...launchInGroup(sandbox.user, sandbox.joins, PRLIMIT, [...LIMITS, '--', ...pasta]),
    title: pasta.join('\0'),
  };
}

/** The environment inside: nothing of ours. */
export const PMA_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: PMA_INSIDE.tmp,
  LANG: 'C.UTF-8',
  TMPDIR: PMA_INSIDE.tmp,
};

/** Runs `command` in a sandbox like phpMyAdmin's (same user, view and network) to its end: probes. */
export async function runInPhpMyAdminSandbox(
  sandbox: PhpMyAdminSandbox,
  command: string[],
  io: SandboxIo = {},
): Promise<SandboxResult> {
  const line = phpMyAdminCommand(sandbox, command);
  const child = spawnSandbox(line.command, line.args, { uid: line.uid, gid: line.gid, env: PMA_ENV });
  return settleSandboxed(child, command, io);
}
