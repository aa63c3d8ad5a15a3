import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { OsUser } from '../host/host.ts';
import { type SupervisedProcess, superviseProcess } from '../host/supervisor.ts';
import { type DiskPool, diskPool, disksDir } from '../host/tenant-disks.ts';
import { MARIADB_BUFFER_POOL_MB } from './database-disks.ts';

/**
 * The private MariaDB's own process (mariadb-server.ts runs it): its data folder made once, its
 * command line with the bounds that keep tenants' writes where they belong, and its temporary disk.
 */

/** The private MariaDB's files (mariadbPaths of mariadb-server.ts). */
export interface MariaDbFiles {
  data: string;
  tmp: string;
  socket: string;
  serverPidFile: string;
  pidFile: string;
  logFile: string;
}

/** The system tablespace holds every tenant's undo log: bounded, a huge transaction fails, not the host. */
const SYSTEM_TABLESPACE_MAX_MB = 2048;

/** Makes the data folder on the first start (root logs in over the socket: no admin password). */
export async function initialiseMariaDb(
  files: MariaDbFiles,
  user: OsUser | undefined,
  adminUser: string,
  log: (line: string) => void,
): Promise<void> {
  if (existsSync(path.join(files.data, 'mysql'))) return;
  log(`mariadb: initialising ${files.data}`);
  await promisify(execFile)('/usr/bin/mariadb-install-db', [
    '--no-defaults',
    ...(user ? [`--user=${user.name}`] : [`--auth-root-socket-user=${adminUser}`]),
    `--datadir=${files.data}`,
    '--auth-root-authentication-method=socket',
    '--skip-test-db',
  ]);
}

/** The system tablespace's bound: an ibdata1 already larger (it grew before there was one) raises it. */
export async function systemTablespaceMaxMb(files: MariaDbFiles): Promise<number> {
  const size = await stat(path.join(files.data, 'ibdata1')).then(
    (info) => info.size,
    () => 0,
  );
  return Math.max(SYSTEM_TABLESPACE_MAX_MB, Math.ceil(size / 1024 / 1024) + 256);
}

/**
 * MariaDB's temporary disk: sorts of a tenant may take twice the largest database; the platform's own,
 * so outside the reserve's admission (it is counted as promised all the same).
 */
export function mariadbTmpDisk(
  root: string,
  owner: { uid: number; gid: number },
  tenantLimitMb: number,
  log: (line: string) => void,
): DiskPool {
  return diskPool({
    dir: path.join(disksDir(root), 'mariadb-tmp'),
    names: /^tmp$/,
    sizeMb: Math.max(256, 2 * tenantLimitMb),
    label: 'berth-mysqltmp',
    rootOwner: owner,
    rootMode: 0o700,
    log,
  });
}

/**
 * How a server process is started when it is not spawned as its user directly: inside a control group
 * (host/control-groups.ts launchInGroup). Answers the command to spawn, as root, for the server's own
 * command line; the process shows that command line once running (its `title`).
 */
export type ServerLaunch = (command: string, args: string[]) => { command: string; args: string[] };

/** What a server of one instance changes on the command line (instance-servers.ts). */
export interface ServerVariant {
  /** The supervisor's name of the process (logs). */
  name: string;
  /** Where TCP clients connect: default 127.0.0.1. */
  bindAddress: string;
  /** Options after the common ones (sizes, TLS). */
  args: string[];
  launch: ServerLaunch;
}

/** mariadbd's command line (after the program) for these files and options. */
export function mariadbArgs(
  files: MariaDbFiles,
  server: { port: number; tablespaceMaxMb: number; variant?: ServerVariant },
): string[] {
  const { variant } = server;
  return [
    '--no-defaults',
    `--datadir=${files.data}`,
    `--socket=${files.socket}`,
    `--pid-file=${files.serverPidFile}`,
    `--port=${server.port}`,
    `--bind-address=${variant?.bindAddress ?? '127.0.0.1'}`,
    '--skip-name-resolve',
    ...(variant ? [] : [`--innodb-buffer-pool-size=${MARIADB_BUFFER_POOL_MB}M`]),
    '--symbolic-links=0',
    '--enforce-storage-engine=InnoDB',
    `--tmpdir=${files.tmp}`,
    `--innodb-data-file-path=ibdata1:12M:autoextend:max:${server.tablespaceMaxMb}M`,
    // PAGE_COMPRESSED tables are written whole: no page leaves a hole to fill later.
    '--innodb-compression-algorithm=none',
    ...(variant?.args ?? []),
  ];
}

/** The supervised mariadbd (not started), ready once `ready` (a query as the admin) succeeds. */
export function supervisedMariaDb(
  files: MariaDbFiles,
  server: {
    port: number;
    tablespaceMaxMb: number;
    user: OsUser | undefined;
    beforeLaunch(): Promise<void>;
    ready(): Promise<void>;
    variant?: ServerVariant;
  },
  log: (line: string) => void,
): SupervisedProcess {
  const variant = server.variant;
  const args = mariadbArgs(files, server);
  const launched = variant?.launch('/usr/sbin/mariadbd', args);
  return superviseProcess(
    {
      name: variant?.name ?? 'mariadb',
      command: launched?.command ?? '/usr/sbin/mariadbd',
      args: launched?.args ?? args,
      ...(launched ? { title: ['/usr/sbin/mariadbd', ...args].join('\0') } : {}),
      user: launched ? undefined : server.user,
      pidFile: files.pidFile,
      logFile: files.logFile,
      stopSignal: 'SIGTERM',
      stopTimeoutMs: 30_000,
      beforeLaunch: server.beforeLaunch,
      ready: server.ready,
      readyTimeoutMs: 30_000,
    },
    log,
  );
}
