import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createKeyedLock } from '../../../lib/keyed-lock.ts';
import { type OsUser, systemUser } from './host.ts';

/**
 * The OS user of each tenant (a site's `wp_<key>`, an n8n instance's `n8n_<key>`: an account without
 * login, password or home of its own): its processes run as it and it owns its files. Root only.
 *
 * Tenant ids come from a range of their own, far above the system and login accounts and the usual
 * subordinate-id ranges of containers (TENANT_IDS), and are never given out twice: a high-water mark kept
 * on the host (TENANT_ID_FILE) only grows, so a file a deleted tenant left somewhere (a restored archive,
 * a forgotten temporary file) can never come to belong to a later stranger. The user's group has the
 * same number.
 */

const run = promisify(execFile);

export const TENANT_IDS = { first: 2_000_000_000, last: 2_099_999_999 } as const;
/** The next tenant id to try (host-wide: users are). */
const TENANT_ID_FILE = '/var/lib/berth/tenant-id-next';

// useradd/userdel lock /etc/passwd and fail rather than wait: one at a time.
const lock = createKeyedLock();
const serial = <T>(task: () => Promise<T>): Promise<T> => lock('accounts', task);

/** The highest id of the range in an /etc/passwd- or /etc/group-like file (third field). */
function highestIn(file: string): number {
  let highest = TENANT_IDS.first - 1;
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const id = Number(line.split(':')[2]);
      if (id >= TENANT_IDS.first && id <= TENANT_IDS.last && id > highest) highest = id;
    }
  } catch {
    // no such file: nothing of ours
  }
  return highest;
}

function readMark(): number {
  try {
    return Number.parseInt(readFileSync(TENANT_ID_FILE, 'utf8'), 10) || TENANT_IDS.first;
  } catch {
    return TENANT_IDS.first; // first tenant of this host
  }
}

/** The first id above every one ever handed out (the mark) and every one in use now. */
function nextTenantId(): number {
  const next = Math.max(readMark(), highestIn('/etc/passwd') + 1, highestIn('/etc/group') + 1);
  if (next > TENANT_IDS.last) throw new Error('The tenant user id range is used up');
  return next;
}

/** Records that `id` was handed out: the mark only ever grows. */
function raiseMark(id: number): void {
  if (readMark() > id) return;
  mkdirSync(path.dirname(TENANT_ID_FILE), { recursive: true, mode: 0o755 });
  writeFileSync(`${TENANT_ID_FILE}.tmp`, `${id + 1}\n`, { mode: 0o644 });
  renameSync(`${TENANT_ID_FILE}.tmp`, TENANT_ID_FILE);
}

/** The number of the group named `name`, if it exists (left by a creation that stopped half-way). */
function groupId(name: string): number | undefined {
  try {
    const line = readFileSync('/etc/group', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith(`${name}:`));
    return line === undefined ? undefined : Number(line.split(':')[2]);
  } catch {
    return undefined;
  }
}

/**
 * Adds the group with the next free tenant id. Another server process on this host may take the same
 * number at the same moment (groupadd then refuses it as not unique): then the next one is tried.
 */
async function addGroup(name: string): Promise<number> {
  for (let tries = 1; ; tries++) {
    const id = nextTenantId();
    try {
      await run('/usr/sbin/groupadd', ['--gid', String(id), name]);
      return id;
    } catch (error) {
      if (tries >= 5 || groupId(name) !== undefined) throw error;
    }
  }
}

export function ensureSiteUser(name: string, home: string): Promise<OsUser> {
  return serial(async () => {
    const existing = systemUser(name);
    if (existing) return existing;
    // A group of that name in the range is ours, left by a creation that stopped half-way.
    let id = groupId(name);
    if (id === undefined || id < TENANT_IDS.first || id > TENANT_IDS.last) {
      id = await addGroup(name);
    }
    raiseMark(id);
    await run('/usr/sbin/useradd', [
      '--uid',
      String(id),
      '--gid',
      String(id),
      '--no-create-home',
      '--no-log-init',
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
