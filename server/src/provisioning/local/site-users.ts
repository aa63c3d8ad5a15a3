import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createKeyedLock } from '../../lib/keyed-lock.ts';
import { type OsUser, systemUser } from './host.ts';

/**
 * The OS user of each site (`wp_<key>`, a system account without login or home of its own): its PHP
 * workers run as it and it owns the site's files. Root only; single-user mode has none.
 */

const run = promisify(execFile);

// useradd/userdel lock /etc/passwd and fail rather than wait: one at a time.
const lock = createKeyedLock();
const serial = <T>(task: () => Promise<T>): Promise<T> => lock('accounts', task);

export function ensureSiteUser(name: string, home: string): Promise<OsUser> {
  return serial(async () => {
    const existing = systemUser(name);
    if (existing) return existing;
    await run('/usr/sbin/useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      home,
      '--shell',
      '/usr/sbin/nologin',
      name,
    ]);
    const created = systemUser(name);
    if (!created) throw new Error(`useradd ${name} succeeded but the user is not in /etc/passwd`);
    return created;
  });
}

/** Pids of the live processes running as `uid` (from /proc; zombies, already dead, are not counted). */
function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (/^State:\s+Z/m.test(status)) continue;
      const line = status.match(/^Uid:\s+(\d+)\s+(\d+)/m);
      if (line && (Number(line[1]) === uid || Number(line[2]) === uid)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Removes the user (and its group). Its PHP workers should be gone with its pool; any process still
 * running as it after `graceMs` (a stuck request) is killed, since userdel refuses a user in use.
 */
export function removeSiteUser(name: string, graceMs = 10_000): Promise<void> {
  return serial(async () => {
    const user = systemUser(name);
    if (!user) return;
    const deadline = Date.now() + graceMs;
    while (processesOf(user.uid).length > 0 && Date.now() < deadline) await sleep(50);
    for (const pid of processesOf(user.uid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    // A killed process lingers until its parent reaps it, longer on a loaded machine; userdel refuses
    // a user with a process ("currently used by process"), so wait for the last one to go.
    const killedBy = Date.now() + 5_000;
    while (processesOf(user.uid).length > 0 && Date.now() < killedBy) await sleep(50);
    await run('/usr/sbin/userdel', [name]);
  });
}
