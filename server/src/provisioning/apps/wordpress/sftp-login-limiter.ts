import { isIPv6 } from 'node:net';
import { createKeyedLock } from '../../../lib/keyed-lock.ts';

export interface LoginLimiterOptions {
  /**
   * Failed logins for one user name from one address within the window that lock that name for that
   * address (only: a stranger guessing a public user name cannot lock its owner out). Default 5.
   */
  maxFailuresPerUser?: number;
  /** Failed logins from one remote address within the window that lock that address. Default 20. */
  maxFailuresPerAddress?: number;
  /** How far back failures count, and how long a lock lasts. Default 15 minutes. */
  windowMs?: number;
  /** Most user names and addresses remembered at once; the oldest are forgotten first. Default 10,000. */
  maxEntries?: number;
  /** The clock, in milliseconds. Default Date.now. */
  now?: () => number;
  log: (line: string) => void;
}

export interface LoginLimiter {
  /**
   * Runs one password check of `user` from `address`: undefined (a refusal, `check` not called) while
   * the user name from that address, or the address, is locked, else what `check` gives, its undefined counted as a failed
   * login and an account clearing the user's failures. Checks of one user name, and of one address,
   * run one at a time, so parallel connections cannot try more passwords than the limits allow.
   */
  attempt<T>(user: string, address: string, check: () => Promise<T | undefined>): Promise<T | undefined>;
  /** How many user names and addresses it remembers now (bounded by maxEntries). */
  size(): number;
}

interface Entry {
  /** Times of the failures within the window, oldest first; never more than the limit. */
  failures: number[];
  lockedUntil: number | undefined;
}

/** A user name or address as shown in the log: control characters escaped, long names cut. */
function printable(text: string): string {
  const cut = text.length > 64 ? `${text.slice(0, 64)}…` : text;
  return JSON.stringify(cut).slice(1, -1);
}

/** IPv6 addresses count per /64 (one host usually holds all of one); IPv4 (also IPv4-mapped) as is. */
export function addressKey(address: string): string {
  if (address.toLowerCase().startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Failed-login limits kept in memory (one process serves every login): after `maxFailuresPerUser` failed
 * logins for a user name from one address (IPv6: one /64), or `maxFailuresPerAddress` from an address,
 * within `windowMs`, further logins for that name from that address, or from that address, are refused
 * without checking the password for `windowMs`. The same name from another address is not locked, so
 * guessing a customer's (public) user name cannot lock them out. Names that do not exist count and lock
 * alike, so refusals tell nothing about which accounts exist.
 */
export function createLoginLimiter(options: LoginLimiterOptions): LoginLimiter {
  const maxPerUser = options.maxFailuresPerUser ?? 5;
  const maxPerAddress = options.maxFailuresPerAddress ?? 20;
  const windowMs = options.windowMs ?? 15 * 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const { log } = options;
  const entries = new Map<string, Entry>();
  /** Runs the checks of one key (a user name from an address, or an address) one at a time. */
  const oneAtATime = createKeyedLock();
  let lastSweep = Number.NEGATIVE_INFINITY;

  /** The entry of a key with what has aged out dropped, or undefined when nothing is left. */
  function current(key: string, at: number): Entry | undefined {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.lockedUntil !== undefined && entry.lockedUntil <= at) entry.lockedUntil = undefined;
    if (entry.lockedUntil === undefined) {
      entry.failures = entry.failures.filter((time) => time > at - windowMs);
      if (entry.failures.length === 0) {
        entries.delete(key);
        return undefined;
      }
    }
    return entry;
  }

  const locked = (key: string, at: number) => current(key, at)?.lockedUntil !== undefined;

  function fail(key: string, label: string, limit: number, at: number): void {
    let entry = current(key, at);
    if (entry?.lockedUntil !== undefined) return;
    if (!entry) {
      entry = { failures: [], lockedUntil: undefined };
      entries.set(key, entry);
    }
    entry.failures.push(at);
    if (entry.failures.length < limit) return;
    entry.failures = [];
    entry.lockedUntil = at + windowMs;
    log(
      `sftp: too many failed logins for ${printable(label)}, refusing for ${Math.ceil(windowMs / 60_000)} min`,
    );
  }

  /** Drops what has aged out (at most once a minute), then the oldest entries beyond maxEntries. */
  function prune(at: number): void {
    if (at - lastSweep >= 60_000 || entries.size > maxEntries) {
      lastSweep = at;
      for (const key of [...entries.keys()]) current(key, at);
    }
    for (const key of entries.keys()) {
      if (entries.size <= maxEntries) break;
      entries.delete(key);
    }
  }

  return {
    attempt(user, address, check) {
      const addressKeyed = addressKey(address);
      const userKey = `user:${addressKeyed}:${user.slice(0, 256)}`;
      const fromKey = `address:${addressKeyed}`;
      // Always the user name first, then the address: no two attempts wait on each other in a circle.
      return oneAtATime(userKey, () =>
        oneAtATime(fromKey, async () => {
          if (locked(userKey, now()) || locked(fromKey, now())) return undefined;
          const found = await check();
          const at = now();
          if (found === undefined) {
            fail(userKey, `${user} from ${addressKeyed}`, maxPerUser, at);
            fail(fromKey, addressKeyed, maxPerAddress, at);
          } else {
            entries.delete(userKey);
          }
          prune(at);
          return found;
        }),
      );
    },
    size: () => entries.size,
  };
}
