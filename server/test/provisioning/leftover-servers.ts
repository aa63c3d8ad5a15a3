import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Kills the servers a local driver left running under `dataRoot` (its supervisor's pid files), e.g.
 * after a test SIGKILLed the server process that ran them or a test failed before stopping it, and
 * unmounts the site disks it left mounted there. Only pids whose command line names the data root are
 * touched, each with its process group (a site's sandbox is one). Answers the pids it killed.
 */
export function killLeftoverServers(dataRoot: string): number[] {
  const run = path.join(dataRoot, 'run');
  const killed: number[] = [];
  if (existsSync(run)) {
    for (const file of readdirSync(run).filter((name) => name.endsWith('.pid'))) {
      const pid = Number.parseInt(readFileSync(path.join(run, file), 'utf8'), 10);
      const cmdline = `/proc/${pid}/cmdline`;
      if (!pid || !existsSync(cmdline) || !readFileSync(cmdline, 'utf8').includes(dataRoot)) continue;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        process.kill(pid, 'SIGKILL');
      }
      killed.push(pid);
    }
  }
  unmountUnder(dataRoot);
  return killed;
}

/** Lazily unmounts every mount point below `dir` (site disks), deepest first. */
function unmountUnder(dir: string): void {
  const prefix = `${path.resolve(dir)}/`;
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point?.startsWith(prefix) === true)
    .sort((a, b) => b.length - a.length);
  for (const point of points) execFileSync('/usr/bin/umount', ['--lazy', point]);
}
