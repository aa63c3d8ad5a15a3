import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';

/** Small host helpers for the local driver: OS users, owned directories, ports, state files. */

export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

export const isRoot = (): boolean => process.getuid?.() === 0;

/** An account from /etc/passwd (e.g. `mysql`, `postgres`, created by the Debian packages). */
export function systemUser(name: string): OsUser | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid ? { name, uid: Number(uid), gid: Number(gid) } : undefined;
}

/**
 * The user a server runs as: the named service account when we are root (servers refuse to run as
 * root), otherwise ourselves (a single-user dev setup).
 */
export function serviceUser(name: string): OsUser | undefined {
  if (!isRoot()) return undefined;
  const user = systemUser(name);
  if (!user) throw new Error(`The OS user "${name}" is missing (it comes with the Debian package)`);
  return user;
}

/** mkdir -p, then make `dir` belong to `owner` (when given) with `mode`. */
export async function ownedDir(dir: string, owner: OsUser | undefined, mode: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (owner) await chown(dir, owner.uid, owner.gid);
  await chmod(dir, mode);
}

/**
 * The service users must pass through every parent of the data root: open the root itself for
 * traversal (not listing) and fail clearly when a parent such as /root is closed.
 */
export async function makeTraversable(root: string): Promise<void> {
  await mkdir(root, { recursive: true });
  const mode = (await stat(root)).mode & 0o7777;
  if ((mode & 0o011) !== 0o011) await chmod(root, mode | 0o011);
  for (let dir = path.dirname(root); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new Error(
        `The database servers run as the mysql/postgres users and cannot reach ${root}: ${dir} is closed to other users`,
      );
    }
  }
}

/** Reads a small JSON state file (mode 600), or undefined when it does not exist yet. */
export async function readState<T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> {
  if (!existsSync(file)) return undefined;
  return schema.parse(JSON.parse(await readFile(file, 'utf8')));
}

export async function writeState(file: string, state: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}
