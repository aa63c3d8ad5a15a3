import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What the start-up log and the admin panel say when no bucket is configured (the operator's words). */
export const BACKUPS_NOT_OFFSITE =
  'Backups are NOT off-site: they are on this server’s disk, and a lost disk takes them with it. Set BACKUP_S3_ENDPOINT, BACKUP_S3_BUCKET, BACKUP_S3_REGION, BACKUP_S3_ACCESS_KEY_ID, BACKUP_S3_SECRET_ACCESS_KEY and BACKUP_S3_FORCE_PATH_STYLE to keep them in an S3-compatible bucket.';

/**
 * Where backup archives are kept: a folder on this host, or an S3-compatible bucket (s3-store.ts). The
 * store only keeps bytes under keys; encryption and checksums are the vault's (backup-vault.ts).
 */
export interface ObjectStore {
  readonly kind: 'local' | 's3';
  /** Whether the archives are away from this machine (a bucket) or on its own disk (a folder). */
  readonly offsite: boolean;
  /** Where, for the start-up log and the admin panel. */
  readonly description: string;
  /** Stores `body` under `key`, streamed (never held whole); a key only ever holds a whole object. */
  put(key: string, body: Readable): Promise<void>;
  /** The object's bytes; ObjectMissingError when there is none. */
  get(key: string): Promise<Readable>;
  /** Removes the object (none: nothing to do). */
  remove(key: string): Promise<void>;
  /** The keys that start with `prefix`. */
  list(prefix: string): Promise<string[]>;
  /** Removes what uploads cut short by a crash left under `prefix`; answers how many. */
  removeUnfinished(prefix: string): Promise<number>;
}

export class ObjectMissingError extends Error {}

const KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/;

export function checkKey(key: string): string {
  if (!KEY.test(key) || key.includes('..')) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
  return key;
}

const UNFINISHED = '.unfinished-';

/**
 * Archives in a folder of this host (root's, 700): written under a temporary name and renamed once
 * whole. Not off-site: a lost disk takes them along.
 */
export function folderStore(dir: string): ObjectStore {
  const file = (key: string) => path.join(dir, checkKey(key));
  return {
    kind: 'local',
    offsite: false,
    description: `folder ${dir} on this machine (not off-site)`,

    async put(key, body) {
      const target = file(key);
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      const temporary = `${target}${UNFINISHED}${randomBytes(6).toString('hex')}`;
      try {
        await pipeline(body, createWriteStream(temporary, { mode: 0o600 }));
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },

    async get(key) {
      const target = file(key);
      try {
        await stat(target);
      } catch {
        throw new ObjectMissingError(`No object ${key}`);
      }
      return createReadStream(target);
    },

    async remove(key) {
      await rm(file(key), { force: true });
    },

    async list(prefix) {
      const base = path.join(dir, prefix.replace(/\/[^/]*$/, ''));
      let entries: string[];
      try {
        entries = await readdir(base, { recursive: true });
      } catch {
        return [];
      }
      const keys: string[] = [];
      for (const entry of entries) {
        const key = path.relative(dir, path.join(base, entry));
        if (!key.startsWith(prefix) || key.includes(UNFINISHED)) continue;
        if ((await stat(path.join(dir, key))).isFile()) keys.push(key);
      }
      return keys.sort();
    },

    async removeUnfinished(prefix) {
      const base = path.join(dir, prefix);
      let entries: string[];
      try {
        entries = await readdir(base, { recursive: true });
      } catch {
        return 0;
      }
      const left = entries.filter((entry) => path.basename(entry).includes(UNFINISHED));
      for (const entry of left) await rm(path.join(base, entry), { force: true });
      return left.length;
    },
  };
}
