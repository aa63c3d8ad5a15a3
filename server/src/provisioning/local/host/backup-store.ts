import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { ValidationError } from '../../../lib/errors.ts';
import type { BackupInfo } from '../../engine.ts';
import { readState } from './host.ts';

/**
 * Where the local driver keeps instances' backups, whatever the type: `<root>/backups/<instance id>/
 * <backup id>/` (root, 700: outside every instance, so a customer cannot touch them), each with the
 * archives, their SHA256SUMS and a manifest. A backup is written to `<backup id>.partial/` and renamed
 * when complete, so a listed backup is always a whole one. What the archives hold is each engine's
 * (backups.ts for WordPress, n8n-backups.ts).
 */

const ManifestSchema = z.object({
  id: z.string(),
  name: z.string(),
  note: z.string(),
  createdAt: z.string(),
  size: z.number(),
  sha256: z.string(),
  files: z.array(z.object({ name: z.string(), size: z.number(), sha256: z.string() })),
  /** Tables in the dumped database: a restore must bring back exactly as many. */
  tables: z.number().int(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** The folder of an instance's backups. */
export const backupsOf = (root: string, id: string) => path.join(root, 'backups', id);

export function checkBackupId(backupId: string): string {
  if (!/^[a-z0-9-]{1,64}$/.test(backupId)) {
    throw new ValidationError(`Invalid backup id: ${JSON.stringify(backupId)}`);
  }
  return backupId;
}

/** sha256 (hex) of a file, streamed. */
export async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export const toInfo = (m: Manifest): BackupInfo => ({
  id: m.id,
  name: m.name,
  note: m.note,
  createdAt: m.createdAt,
  size: m.size,
  sha256: m.sha256,
});

export async function readManifest(
  root: string,
  id: string,
  backupId: string,
): Promise<Manifest | undefined> {
  return readState(path.join(backupsOf(root, id), checkBackupId(backupId), 'manifest.json'), ManifestSchema);
}

export async function listBackups(root: string, id: string): Promise<BackupInfo[]> {
  const base = backupsOf(root, id);
  if (!existsSync(base)) return [];
  const ids = (await readdir(base)).filter((entry) => /^[a-z0-9-]{1,64}$/.test(entry));
  const manifests = await Promise.all(ids.map((backupId) => readManifest(root, id, backupId)));
  return manifests
    .filter((m): m is Manifest => m !== undefined)
    .map(toInfo)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export async function deleteBackup(root: string, id: string, backupId: string): Promise<void> {
  await rm(path.join(backupsOf(root, id), checkBackupId(backupId)), { recursive: true, force: true });
}

export async function deleteAllBackups(root: string, id: string): Promise<void> {
  await rm(backupsOf(root, id), { recursive: true, force: true });
}
