import { existsSync, readdirSync, statSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Host-wide folders made once and shared (the n8n runtime, its template database, its compile cache) are
 * built in a folder of the build's own, `<target>.partial-<pid>-<n>`, and renamed into place when
 * complete. Processes building the same folder at once (two servers on one host, a test run beside
 * `npm start`, CI's clone) never write into each other's; the first to finish wins and the others throw
 * their copy away. Folders left by a process that died are removed by the next build.
 */

const PARTIAL = /^\.partial(?:-(\d+)-\d+)?$/;
let builds = 0;

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the partial folders of `target` whose process is gone (and the older shared `.partial`). */
async function removeAbandoned(target: string): Promise<void> {
  const parent = path.dirname(target);
  const base = path.basename(target);
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith(base)) continue;
    const match = PARTIAL.exec(name.slice(base.length));
    if (!match) continue;
    const pid = match[1] === undefined ? undefined : Number(match[1]);
    if (pid === process.pid || (pid !== undefined && isAlive(pid))) continue;
    await rm(path.join(parent, name), { recursive: true, force: true });
  }
}

/**
 * When a live process (this one or another) is building `target` now: when the oldest such build began
 * (its partial folder's birth), else undefined.
 */
export function buildUnderWay(target: string): Date | undefined {
  const parent = path.dirname(target);
  const base = path.basename(target);
  let began: Date | undefined;
  for (const name of existsSync(parent) ? readdirSync(parent) : []) {
    if (!name.startsWith(base)) continue;
    const pid = PARTIAL.exec(name.slice(base.length))?.[1];
    if (pid === undefined || !isAlive(Number(pid))) continue;
    const stats = statSync(path.join(parent, name), { throwIfNoEntry: false });
    const birth = stats && (stats.birthtimeMs > 0 ? stats.birthtime : stats.ctime);
    if (birth && (!began || birth < began)) began = birth;
  }
  return began;
}

/**
 * Makes `target` with `build(partial)`, which fills the folder `partial` (it does not exist yet), unless
 * `isComplete()` says it is there already. Answers false when another process completed it first.
 */
export async function buildOnce(
  target: string,
  isComplete: () => boolean,
  build: (partial: string) => Promise<void>,
): Promise<boolean> {
  if (isComplete()) return false;
  await removeAbandoned(target);
  builds += 1;
  const partial = `${target}.partial-${process.pid}-${builds}`;
  try {
    await build(partial);
    if (isComplete()) return false;
    // What is there is incomplete: a leftover of an interrupted build of an older release.
    await rm(target, { recursive: true, force: true });
    await rename(partial, target);
    return true;
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
