import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { launchInGroup } from '../host/control-groups.ts';
import { isRoot, type OsUser, ownedDir } from '../host/host.ts';
import { BWRAP, type SandboxIo, type SandboxResult, settleSandboxed } from '../host/sandbox-process.ts';
import { SECCOMP_ARGS, spawnSandbox } from '../host/seccomp.ts';

/**
 * The sandbox every piece of a site's code and every operation on a site's files runs in: bubblewrap
 * started *as the site's own user* (an unprivileged user namespace mapping that user to itself, so it
 * holds no privilege over anything the user does not own), with new mount, PID, network, IPC, UTS and
 * cgroup namespaces and nested user namespaces disabled. Inside, the file system is a read-only empty
 * root with only:
 *
 * - `/public`, `/tmp`, `/logs`: the site's own folders (read-write), and for maintenance work the whole
 *   site disk at `/site`;
 * - `/usr` (read-only, with the usual `/bin`, `/lib`… links), `/etc/php` (PHP's ini files), the CA
 *   bundle and the time zone, a passwd/group naming only the site user, and `/etc/berth` (the site's
 *   generated php-fpm configuration and the install script, read-only);
 * - for PHP: `/run/php` (where its FastCGI socket is created for the front door) and MariaDB's socket at
 *   `/run/mysqld/mysqld.sock`.
 *
 * No network but loopback inside the namespace: the host's 127.0.0.1 services, the platform database,
 * other tenants' sockets and the cloud metadata address are unreachable. Other sites, the data directory,
 * secrets and the platform's files do not exist in it.
 *
 * Every sandbox loads the system call filter of seccomp.ts (`--seccomp 3`: whoever spawns bwrap hands it
 * the program on fd 3, see spawnSandbox): no FIFO or device on the site's disk, no kernel keyrings, eBPF,
 * io_uring, ptrace, mounts and the like.
 */

export interface SandboxSite {
  /** Site key (names the sandbox's config folder). */
  key: string;
  user: OsUser;
  /** The site disk's mount point on the host: public/, tmp/, logs/, run/. */
  disk: string;
  /** Root-owned, read-only inside at /etc/berth: passwd, group, php-fpm.conf, the install script. */
  etcDir: string;
  /** MariaDB's unix socket on the host, bound in for PHP (absent: no database socket). */
  mysqlSocket: string | undefined;
  /**
   * The cgroup.procs files of the site's control group (host/control-groups.ts): everything started in
   * the sandbox joins it first. Empty on a host without control groups.
   */
  joins: readonly string[];
}

/**
 * `php`: what PHP (php-fpm, the installer) sees; `sftp`: the customer's SFTP sessions; `files`: the
 * driver's maintenance commands (the whole disk at /site too, so a rename between tmp/ and public/ stays
 * on one mount).
 */
export type SandboxView = 'php' | 'sftp' | 'files';

/** The sandbox's folders inside (fixed for every site, so paths stored by WordPress never name the host). */
export const INSIDE = {
  public: '/public',
  tmp: '/tmp',
  logs: '/logs',
  disk: '/site',
  phpRun: '/run/php',
  phpSocket: '/run/php/php.sock',
  mysqlSocket: '/run/mysqld/mysqld.sock',
  etc: '/etc/berth',
} as const;

/** Where a site's sandbox configuration lives on the host (root-owned, readable by the site user). */
export const sandboxEtcDir = (root: string, key: string): string => path.join(root, 'sandbox', key);

/** Writes /etc/passwd and /etc/group naming only the site user (sftp-server looks its user up). */
export async function writeSandboxAccounts(etcDir: string, user: OsUser): Promise<void> {
  await ownedDir(path.dirname(etcDir), undefined, 0o711);
  await ownedDir(etcDir, undefined, 0o755);
  await writeFile(
    path.join(etcDir, 'passwd'),
    `${user.name}:x:${user.uid}:${user.gid}:Berth site:/:/usr/sbin/nologin\n`,
    { mode: 0o644 },
  );
  await writeFile(path.join(etcDir, 'group'), `${user.name}:x:${user.gid}:\n`, { mode: 0o644 });
}

const optionalEtc = ['/etc/ssl/certs', '/etc/localtime', '/etc/timezone', '/etc/mime.types'];

/** The bwrap arguments (before the command) for a site and a view. */
export function sandboxArgs(
  site: SandboxSite,
  view: SandboxView,
  options: { chdir?: string; dieWithParent?: boolean } = {},
): string[] {
  const args = [
    ...SECCOMP_ARGS,
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--hostname',
    'site',
    ...(options.dieWithParent ? ['--die-with-parent', '--new-session'] : []),
    '--ro-bind',
    '/usr',
    '/usr',
    ...['bin', 'sbin', 'lib', 'lib64'].flatMap((dir) => ['--symlink', `usr/${dir}`, `/${dir}`]),
    '--ro-bind',
    '/etc/php',
    '/etc/php',
    ...optionalEtc.filter((file) => existsSync(file)).flatMap((file) => ['--ro-bind', file, file]),
    '--ro-bind',
    path.join(site.etcDir, 'passwd'),
    '/etc/passwd',
    '--ro-bind',
    path.join(site.etcDir, 'group'),
    '/etc/group',
    '--ro-bind',
    site.etcDir,
    INSIDE.etc,
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    path.join(site.disk, 'public'),
    INSIDE.public,
    '--bind',
    path.join(site.disk, 'tmp'),
    INSIDE.tmp,
    '--bind',
    path.join(site.disk, 'logs'),
    INSIDE.logs,
  ];
  if (view === 'php') {
    args.push('--bind', path.join(site.disk, 'run'), INSIDE.phpRun);
    if (site.mysqlSocket) args.push('--ro-bind', site.mysqlSocket, INSIDE.mysqlSocket);
  } else if (view === 'files') {
    args.push('--bind', site.disk, INSIDE.disk);
  }
  args.push('--chdir', options.chdir ?? INSIDE.public, '--remount-ro', '/');
  return args;
}

/** The environment of sandboxed processes: nothing of ours. */
export const SANDBOX_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: INSIDE.tmp,
  LANG: 'C.UTF-8',
  TMPDIR: INSIDE.tmp,
};

/**
 * How bwrap starts for the site: as the site user, inside the site's control group (only root can do
 * this). `command` is bwrap's arguments and what runs inside.
 */
export function siteLaunch(site: SandboxSite, args: readonly string[]) {
  if (!isRoot()) throw new Error('Site sandboxes need root (each site runs as its own user)');
  return launchInGroup(site.user, site.joins, BWRAP, args);
}

export interface SandboxRun extends SandboxIo {
  view?: SandboxView;
}

/**
 * Runs `command` as the site user inside its sandbox and waits for it; dies with us. Rejects with a
 * SandboxCommandError on a non-zero exit.
 */
export async function runInSandbox(
  site: SandboxSite,
  command: string[],
  run: SandboxRun = {},
): Promise<SandboxResult> {
  const line = siteLaunch(site, [
    ...sandboxArgs(site, run.view ?? 'files', { dieWithParent: true }),
    '--',
    ...command,
  ]);
  const child = spawnSandbox(line.command, line.args, { uid: line.uid, gid: line.gid, env: SANDBOX_ENV });
  return settleSandboxed(child, command, run);
}
