import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path that would leave the chroot (through a symbolic link); answered as "permission denied". */
export class PathRefusedError extends Error {}

/**
 * The virtual path as the client will see it: absolute, normalised, with `..` stopping at `/` (the root),
 * so relative paths, `..` and absolute paths all stay inside.
 */
export function virtualPath(requested: string): string {
  return path.posix.normalize(`/${requested}`).replace(/(.)\/+$/, '$1');
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** `real` is `root` or inside it (both already free of symbolic links). */
const inside = (root: string, real: string) => real === root || real.startsWith(`${root}/`);

/**
 * Maps a client path to the real path under `root` (itself free of symbolic links), refusing any that a
 * symbolic link would lead out of: the deepest existing ancestor must resolve inside the root, and with
 * `followLast` (operations that follow the last component, such as open and stat) so must the path.
 * Operations on the link itself (lstat, remove, rename) pass `followLast: false`.
 */
export async function resolveInRoot(root: string, requested: string, followLast: boolean): Promise<string> {
  const virtual = virtualPath(requested);
  if (virtual === '/') return root;
  const real = path.join(root, virtual);
  let ancestor = path.dirname(real);
  while (ancestor !== root && !(await exists(ancestor))) ancestor = path.dirname(ancestor);
  if (!inside(root, await realpath(ancestor))) throw new PathRefusedError(`${virtual} leads outside`);
  if (followLast && (await exists(real))) {
    let target: string;
    try {
      target = await realpath(real);
    } catch {
      throw new PathRefusedError(`${virtual} is a dangling link`);
    }
    if (!inside(root, target)) throw new PathRefusedError(`${virtual} leads outside`);
  }
  return real;
}
