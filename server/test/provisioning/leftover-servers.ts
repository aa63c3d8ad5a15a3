import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Kills the database servers a local driver left running under `dataRoot` (its supervisor's pid files),
 * e.g. after a test SIGKILLed the server process that ran them or a test failed before stopping it.
 * Only pids whose command line names the data root are touched. Answers the pids it killed.
 */
export function killLeftoverServers(dataRoot: string): number[] {
  const run = path.join(dataRoot, 'run');
  if (!existsSync(run)) return [];
  const killed: number[] = [];
  for (const file of readdirSync(run).filter((name) => name.endsWith('.pid'))) {
    const pid = Number.parseInt(readFileSync(path.join(run, file), 'utf8'), 10);
    const cmdline = `/proc/${pid}/cmdline`;
    if (!pid || !existsSync(cmdline) || !readFileSync(cmdline, 'utf8').includes(dataRoot)) continue;
    process.kill(pid, 'SIGKILL');
    killed.push(pid);
  }
  return killed;
}
