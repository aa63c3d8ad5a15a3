import { readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// What /proc says of processes, for the supervisor (supervisor.ts): alive or not, whose command line,
// whose children; and the signals and log rotation it applies to them.

/** Whether a pid is a live process (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Every descendant of `pid` now (from /proc: each process's parent). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

export async function waitDead(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pids.some(alive)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}
/**
 * True while `pid` runs `cmdline` (NUL-separated, as /proc shows it) or shows `title`: a dead, reused or
 * zombie pid has another or an empty command line.
 */
export function runs(pid: number, cmdline: string, title: string | undefined): boolean {
  try {
    const found = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return found === cmdline || (title !== undefined && found.replace(/\0+$/, '') === title);
  } catch {
    return false;
  }
}

/** Signals `pid`; one already gone is no error. */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Moves `file` to `<file>.1` when it is larger than `limit` bytes. */
export function rotateLog(file: string, limit: number): void {
  try {
    if (statSync(file).size > limit) renameSync(file, `${file}.1`);
  } catch {
    // no log yet
  }
}

/** Waits up to `ms` for `pid` to stop running `cmdline` (or `title`); answers whether it did. */
export async function waitNotRunning(
  pid: number,
  cmdline: string,
  title: string | undefined,
  ms: number,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (runs(pid, cmdline, title)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}
