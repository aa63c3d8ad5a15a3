import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { ServerHealth, StorageLimitEvent } from '../../driver.ts';
import type { Resources, StorageUse } from '../../engine.ts';
import type { TenantNames } from '../../tenant-names.ts';
import type { ServerCertificate } from '../../tls/berth-ca.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import type { OsUser } from '../host/host.ts';
import type { TenantOps } from './engine-server.ts';

/**
 * What the server of one MySQL or PostgreSQL instance is made of (instance-servers.ts places it;
 * instance-mariadb.ts and instance-postgres.ts run it): its own OS user, folder, port, control group
 * and data disk.
 */
export interface InstanceServerPlace {
  id: string;
  names: TenantNames;
  /** `<root>/db/<id>` (root, 711): data/ and run/ (the server's user, 700), tls/, tenants/, tmp. */
  dir: string;
  user: OsUser;
  port: number;
  /** Where it listens for customers (INSTANCE_LISTEN_ADDRESS). */
  listenAddress: string;
  resources: Resources;
  /** The size of its database, MiB (its disk). */
  limitMb: number;
  /** The cgroup.procs files its process joins (none without control groups). */
  joins: string[];
  /** Supervisor pid file and output, in the driver's run/ and logs/. */
  pidFile: string;
  logFile: string;
  /** The folder of its disk's image and record (`<root>/disks/db-<key>`). */
  disksDir: string;
  reserve?: DiskReserve;
  /** The prepared data folder copied at its first start (instance-templates.ts). */
  template: string;
  log: (line: string) => void;
}

/** The server of one instance. */
export interface InstanceServer {
  /** Makes its folders and disk when new, then adopts or starts its process; ready when it answers. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Whether its process is running now (not stopped, not restarting). */
  running(): boolean;
  /** Unmounts and deletes its data disk (the server is stopped). */
  removeDisks(): Promise<void>;
  /** The tenant operations (the instance's database and login) over its admin socket. */
  tenants: TenantOps;
  /** Where the platform logs in as the tenant for dumps (root only): MariaDB's socket, PostgreSQL's folder. */
  socket: string;
  /** The server takes the certificate files written in tls/ again (after a renewal). */
  reloadTls(): Promise<void>;
  storage(names: TenantNames): Promise<StorageUse | undefined>;
  onStorageLimit(listener: (event: StorageLimitEvent) => void): void;
  health(): Promise<ServerHealth>;
}

const run = promisify(execFile);

export const placePaths = (place: Pick<InstanceServerPlace, 'dir'>) => ({
  data: path.join(place.dir, 'data'),
  run: path.join(place.dir, 'run'),
  tls: path.join(place.dir, 'tls'),
  cert: path.join(place.dir, 'tls', 'server.crt'),
  key: path.join(place.dir, 'tls', 'server.key'),
});

/**
 * The instance's folder: root's (711); `data/` and `run/` its server's (700, so that only root and the
 * server itself reach the admin socket); on the first start, `data/` becomes a copy of the template,
 * made the server user's.
 */
export async function prepareFolders(place: InstanceServerPlace, isInitialised: string): Promise<void> {
  const paths = placePaths(place);
  await mkdir(place.dir, { recursive: true, mode: 0o711 });
  await chmod(place.dir, 0o711);
  for (const dir of [paths.run]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chown(dir, place.user.uid, place.user.gid);
  }
  if (!existsSync(path.join(paths.data, isInitialised))) {
    const partial = `${paths.data}.partial`;
    await rm(partial, { recursive: true, force: true });
    await run('/bin/cp', ['-a', '--sparse=always', place.template, partial]);
    await run('/bin/chown', ['-R', `${place.user.uid}:${place.user.gid}`, partial]);
    await chmod(partial, 0o700);
    await rm(paths.data, { recursive: true, force: true });
    await rename(partial, paths.data);
  }
}

/**
 * The certificate and key in `tls/` (root's, group of the server's user, 750; the files 640): the
 * server reads them, cannot change them. Answers whether they changed.
 */
export async function installCertificate(
  place: InstanceServerPlace,
  cert: ServerCertificate,
): Promise<boolean> {
  const paths = placePaths(place);
  const current =
    existsSync(paths.cert) && existsSync(paths.key)
      ? readFileSync(paths.cert, 'utf8') + readFileSync(paths.key, 'utf8')
      : '';
  if (current === cert.certPem + cert.keyPem) return false;
  await mkdir(paths.tls, { recursive: true, mode: 0o750 });
  await chown(paths.tls, 0, place.user.gid);
  await chmod(paths.tls, 0o750);
  for (const [file, text] of [
    [paths.cert, cert.certPem],
    [paths.key, cert.keyPem],
  ] as const) {
    await writeFile(`${file}.tmp`, text, { mode: 0o640 });
    await chown(`${file}.tmp`, 0, place.user.gid);
    await rename(`${file}.tmp`, file);
  }
  return true;
}

/**
 * A server of this instance left running with another command line (its resources changed while the
 * API was down): the supervisor would not adopt it and its port would stay taken. Stopped here, found
 * by its pid file and `marker` (its data folder) in its command line.
 */
export async function stopStaleServer(
  pidFile: string,
  marker: string,
  ours: string,
  signal: NodeJS.Signals,
): Promise<void> {
  let pid = Number.NaN;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  } catch {
    return;
  }
  const cmdline = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  };
  const found = cmdline();
  if (!Number.isInteger(pid) || !found.includes(marker) || found.replace(/\0+$/, '') === ours) return;
  return new Promise<void>((resolve) => {
    try {
      process.kill(pid, signal);
    } catch {
      resolve();
      return;
    }
    (async () => {
      for (let waited = 0; cmdline().includes(marker) && waited < 30_000; waited += 100) await sleep(100);
      if (cmdline().includes(marker)) process.kill(pid, 'SIGKILL');
      resolve();
    })();
  });
}

/** The instance's memory in MiB for one share of it (buffers), at least `min`. */
export const shareOf = (resources: Resources, share: number, min: number) =>
  Math.max(min, Math.floor((resources.memoryMb * share) / 8) * 8);
