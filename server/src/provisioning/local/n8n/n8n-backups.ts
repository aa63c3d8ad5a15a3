import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { NotFoundError, ValidationError } from '../../../lib/errors.ts';
import type { BackupInfo, BackupInput } from '../../engine.ts';
import { readManifest } from '../host/backup-store.ts';
import { writeState } from '../host/host.ts';
import { shell } from '../host/sandbox-process.ts';
import { N8N_INSIDE, type N8nSandbox, runInN8nSandbox } from './n8n-sandbox.ts';

/**
 * n8n backups: the instance's whole data folder as one tar.gz (its SQLite database with workflows,
 * credentials and executions, and `.n8n/config` holding the encryption key the credentials are
 * encrypted with), written while n8n is stopped so the database is consistent. Same layout and manifest
 * as WordPress backups (`<root>/backups/<id>/<backup id>/`, root, 700), so listing and deleting are
 * shared (backups.ts). `tar` reads and writes the folder as the instance user in its sandbox (no
 * network); root only handles the archive stream.
 */

const DATA_FILE = 'data.tar.gz';

const checkId = (backupId: string) => {
  if (!/^[a-z0-9-]{1,64}$/.test(backupId))
    throw new ValidationError(`Invalid backup id: ${JSON.stringify(backupId)}`);
  return backupId;
};

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export async function createN8nBackup(
  root: string,
  id: string,
  sandbox: N8nSandbox,
  input: BackupInput,
): Promise<BackupInfo> {
  const name = input.name.trim();
  const note = (input.note ?? '').trim();
  if (name.length < 1 || name.length > 100)
    throw new ValidationError('A backup name must be 1 to 100 characters');
  if (note.length > 500) throw new ValidationError('A backup note must be at most 500 characters');
  const backupId = checkId(input.backupId ?? randomUUID());
  const existing = await readManifest(root, id, backupId);
  if (existing) return existing;
  const base = path.join(root, 'backups', id);
  await mkdir(base, { recursive: true, mode: 0o700 });
  const partial = path.join(base, `${backupId}.partial`);
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { mode: 0o700 });
  try {
    const archive = path.join(partial, DATA_FILE);
    await runInN8nSandbox(
      sandbox,
      // The editor's cache (regenerated at start) and tmp/ are not worth keeping.
      [
        '/usr/bin/tar',
        '--sparse',
        '--exclude=./.cache',
        '--exclude=./tmp',
        '-czf',
        '-',
        '-C',
        N8N_INSIDE.data,
        '.',
      ],
      { output: createWriteStream(archive, { mode: 0o600 }) },
    );
    const file = { name: DATA_FILE, size: (await stat(archive)).size, sha256: await sha256(archive) };
    const sums = `${file.sha256}  ${file.name}\n`;
    await writeFile(path.join(partial, 'SHA256SUMS'), sums, { mode: 0o600 });
    const manifest = {
      id: backupId,
      name,
      note,
      createdAt: new Date().toISOString(),
      size: file.size,
      sha256: createHash('sha256').update(sums).digest('hex'),
      files: [file],
      tables: 0,
    };
    await writeState(path.join(partial, 'manifest.json'), manifest);
    await rename(partial, path.join(base, backupId));
    const { files: _files, tables: _tables, ...info } = manifest;
    return info;
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

/** The backup exists and its archive still has the checksum it was written with. */
export async function checkN8nBackup(root: string, id: string, backupId: string): Promise<string> {
  const manifest = await readManifest(root, id, checkId(backupId));
  const file = manifest?.files.find((f) => f.name === DATA_FILE);
  if (!manifest || !file) throw new NotFoundError('Backup not found');
  const archive = path.join(root, 'backups', id, backupId, DATA_FILE);
  if ((await sha256(archive)) !== file.sha256)
    throw new ValidationError('The backup is damaged (checksum mismatch)');
  return archive;
}

/** Replaces the data folder's contents with the archived ones (n8n must be stopped). */
export async function restoreN8nBackup(
  root: string,
  id: string,
  sandbox: N8nSandbox,
  backupId: string,
): Promise<void> {
  const archive = await checkN8nBackup(root, id, backupId);
  await runInN8nSandbox(
    sandbox,
    shell(
      'find "$1" -mindepth 1 -maxdepth 1 ! -name tmp -exec rm -rf {} +\ntar -xzf - -C "$1" --no-same-owner',
      N8N_INSIDE.data,
    ),
    { input: createReadStream(archive) },
  );
}
