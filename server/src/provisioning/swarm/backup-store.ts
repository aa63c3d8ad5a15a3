import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { BackupInfo, BackupInput } from '../engine.ts';

/**
 * Backups of swarm instances live off their node, in the platform's backup folder:
 * `<backupsDir>/<instance id>/<backup id>/` holds the archives (gzip), SHA256SUMS and manifest.json. Each
 * archive is streamed from the instance's container straight into its file; a backup is written to
 * `<backup id>.partial/` and renamed when complete, so a half backup is never listed. A node that is gone
 * for good takes no backup with it: the instance can be deployed again elsewhere and restored from here.
 */

const ManifestSchema = z.object({
  id: z.string(),
  name: z.string(),
  note: z.string(),
  createdAt: z.string(),
  size: z.number(),
  sha256: z.string(),
  files: z.array(z.object({ name: z.string(), size: z.number(), sha256: z.string() })),
  /** What the restore checks it brought back (e.g. the table count). */
  check: z.record(z.string(), z.number()),
});
export type Manifest = z.infer<typeof ManifestSchema>;

function checkBackupId(backupId: string): string {
  if (!/^[a-z0-9-]{1,64}$/.test(backupId)) {
    throw new ValidationError(`Invalid backup id: ${JSON.stringify(backupId)}`);
  }
  return backupId;
}

const toInfo = (m: Manifest): BackupInfo => ({
  id: m.id,
  name: m.name,
  note: m.note,
  createdAt: m.createdAt,
  size: m.size,
  sha256: m.sha256,
});

const sumsText = (files: Manifest['files']) => files.map((f) => `${f.sha256}  ${f.name}\n`).join('');

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** One archive of a backup: `write` streams its raw bytes into the sink (gzipped on the way). */
export interface BackupPart {
  name: string;
  write(sink: Writable): Promise<void>;
}

export function backupStore(backupsDir: string) {
  const folder = (id: string) => path.join(backupsDir, id);

  async function manifest(id: string, backupId: string): Promise<Manifest | undefined> {
    const file = path.join(folder(id), checkBackupId(backupId), 'manifest.json');
    if (!existsSync(file)) return undefined;
    return ManifestSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  }

  return {
    manifest,

    async create(
      id: string,
      input: BackupInput,
      parts: BackupPart[],
      check: () => Promise<Record<string, number>>,
    ): Promise<BackupInfo> {
      const name = input.name.trim();
      const note = (input.note ?? '').trim();
      if (name.length < 1 || name.length > 100)
        throw new ValidationError('A backup name must be 1 to 100 characters');
      if (note.length > 500) throw new ValidationError('A backup note must be at most 500 characters');
      const backupId = checkBackupId(input.backupId ?? randomUUID());
      const existing = await manifest(id, backupId);
      if (existing) return toInfo(existing);
      await mkdir(folder(id), { recursive: true, mode: 0o700 });
      const partial = path.join(folder(id), `${backupId}.partial`);
      await rm(partial, { recursive: true, force: true });
      await mkdir(partial, { mode: 0o700 });
      try {
        const checked = await check();
        for (const part of parts) {
          const gzip = createGzip();
          const written = pipeline(gzip, createWriteStream(path.join(partial, part.name), { mode: 0o600 }));
          await part.write(gzip);
          gzip.end();
          await written;
        }
        const files = await Promise.all(
          parts.map(async (part) => ({
            name: part.name,
            size: (await stat(path.join(partial, part.name))).size,
            sha256: await sha256(path.join(partial, part.name)),
          })),
        );
        const sums = sumsText(files);
        await writeFile(path.join(partial, 'SHA256SUMS'), sums, { mode: 0o600 });
        const made: Manifest = {
          id: backupId,
          name,
          note,
          createdAt: new Date().toISOString(),
          size: files.reduce((sum, f) => sum + f.size, 0),
          sha256: createHash('sha256').update(sums).digest('hex'),
          files,
          check: checked,
        };
        await writeFile(path.join(partial, 'manifest.json'), JSON.stringify(made), { mode: 0o600 });
        await rename(partial, path.join(folder(id), backupId));
        return toInfo(made);
      } catch (error) {
        await rm(partial, { recursive: true, force: true });
        throw error;
      }
    },

    async list(id: string): Promise<BackupInfo[]> {
      if (!existsSync(folder(id))) return [];
      const ids = (await readdir(folder(id))).filter((entry) => /^[a-z0-9-]{1,64}$/.test(entry));
      const all = await Promise.all(ids.map((backupId) => manifest(id, backupId)));
      return all
        .filter((m): m is Manifest => m !== undefined)
        .map(toInfo)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },

    /** The verified manifest and a reader of each archive (decompressed); throws when damaged. */
    async open(id: string, backupId: string) {
      const found = await manifest(id, backupId);
      if (!found) throw new NotFoundError('Backup not found');
      for (const file of found.files) {
        const actual = await sha256(path.join(folder(id), backupId, file.name));
        if (actual !== file.sha256) throw new Error(`Backup ${backupId} is damaged: ${file.name} changed`);
      }
      if (createHash('sha256').update(sumsText(found.files)).digest('hex') !== found.sha256) {
        throw new Error(`Backup ${backupId} is damaged: its manifest does not match its checksum`);
      }
      return {
        manifest: found,
        read: (name: string): Readable =>
          createReadStream(path.join(folder(id), backupId, name)).pipe(createGunzip()),
      };
    },

    delete: (id: string, backupId: string) =>
      rm(path.join(folder(id), checkBackupId(backupId)), { recursive: true, force: true }),

    deleteAll: (id: string) => rm(folder(id), { recursive: true, force: true }),
  };
}

export type BackupStore = ReturnType<typeof backupStore>;
