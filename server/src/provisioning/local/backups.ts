import { execFile, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGunzip, createGzip } from 'node:zlib';
import mysql from 'mysql2/promise';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { BackupInfo, BackupInput, DatabaseCredentials } from '../driver.ts';
import type { TenantNames } from '../tenant-names.ts';
import type { TenantOps } from './engine-server.ts';
import { type OsUser, readState, writeState } from './host.ts';

/**
 * WordPress backups: the tenant database dumped with the tenant's own credentials (mariadb-dump, gzip)
 * and wp-content as a tar.gz (core is reproducible, wp-config regenerated), in
 * `<root>/backups/<site id>/<backup id>/` (root, 700: outside the site, so SFTP cannot touch them) with
 * a manifest and SHA256SUMS. A backup is written to `<id>.partial/` and renamed when complete.
 */

const run = promisify(execFile);
const DB_FILE = 'db.sql.gz';
const FILES_FILE = 'files.tar.gz';

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
type Manifest = z.infer<typeof ManifestSchema>;

export interface BackupSite {
  root: string;
  id: string;
  publicDir: string;
  siteDir: string;
  database: DatabaseCredentials;
  tenant: TenantNames;
  tenants: TenantOps;
  owner: OsUser | undefined;
}

const siteBackups = (root: string, id: string) => path.join(root, 'backups', id);

function checkBackupId(backupId: string): string {
  if (!/^[a-z0-9-]{1,64}$/.test(backupId)) {
    throw new ValidationError(`Invalid backup id: ${JSON.stringify(backupId)}`);
  }
  return backupId;
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

const sumsText = (files: Manifest['files']) => files.map((f) => `${f.sha256}  ${f.name}\n`).join('');

const clientEnv = (database: DatabaseCredentials) => ({
  PATH: '/usr/bin:/bin',
  MYSQL_PWD: database.password,
});
const clientArgs = (database: DatabaseCredentials) => [
  '--no-defaults',
  '--protocol=TCP',
  `--host=${database.host}`,
  `--port=${database.port}`,
  `--user=${database.user}`,
];

/**
 * Runs a MariaDB client as the tenant, its stdin from a gzip file (`io.input`, decompressed) or its
 * stdout into one (`io.output`, compressed); rejects with its stderr on failure.
 */
async function client(
  command: string,
  args: string[],
  database: DatabaseCredentials,
  io: { input?: string; output?: string },
): Promise<void> {
  const child = spawn(command, args, { env: clientEnv(database), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const streams: Promise<void>[] = [];
  if (io.input) streams.push(pipeline(createReadStream(io.input), createGunzip(), child.stdin));
  else child.stdin.end();
  if (io.output) streams.push(pipeline(child.stdout, createGzip(), createWriteStream(io.output)));
  else child.stdout.resume();
  const [code, ...piped] = await Promise.allSettled([exited, ...streams]);
  if (code.status === 'rejected') throw code.reason;
  if (code.value !== 0)
    throw new Error(`${path.basename(command)} exited with ${code.value}: ${stderr.trim()}`);
  for (const result of piped) if (result.status === 'rejected') throw result.reason;
}

async function tableCount(database: DatabaseCredentials): Promise<number> {
  const connection = await mysql.createConnection({ ...database, connectTimeout: 5000 });
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE()',
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await connection.end();
  }
}

const toInfo = (m: Manifest): BackupInfo => ({
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
  return readState(
    path.join(siteBackups(root, id), checkBackupId(backupId), 'manifest.json'),
    ManifestSchema,
  );
}

export async function createBackup(site: BackupSite, input: BackupInput): Promise<BackupInfo> {
  const name = input.name.trim();
  const note = (input.note ?? '').trim();
  if (name.length < 1 || name.length > 100)
    throw new ValidationError('A backup name must be 1 to 100 characters');
  if (note.length > 500) throw new ValidationError('A backup note must be at most 500 characters');
  const backupId = checkBackupId(input.backupId ?? randomUUID());
  const existing = await readManifest(site.root, site.id, backupId);
  if (existing) return toInfo(existing);

  const base = siteBackups(site.root, site.id);
  await mkdir(base, { recursive: true, mode: 0o700 });
  const partial = path.join(base, `${backupId}.partial`);
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { mode: 0o700 });
  try {
    const tables = await tableCount(site.database);
    await client(
      '/usr/bin/mariadb-dump',
      [
        ...clientArgs(site.database),
        '--single-transaction',
        '--quick',
        '--no-tablespaces',
        '--routines',
        '--triggers',
        '--hex-blob',
        '--default-character-set=utf8mb4',
        site.database.database,
      ],
      site.database,
      { output: path.join(partial, DB_FILE) },
    );
    await run('/usr/bin/tar', ['-czf', path.join(partial, FILES_FILE), '-C', site.publicDir, 'wp-content']);
    const files = await Promise.all(
      [DB_FILE, FILES_FILE].map(async (file) => ({
        name: file,
        size: (await stat(path.join(partial, file))).size,
        sha256: await sha256(path.join(partial, file)),
      })),
    );
    const sums = sumsText(files);
    await writeFile(path.join(partial, 'SHA256SUMS'), sums, { mode: 0o600 });
    const manifest: Manifest = {
      id: backupId,
      name,
      note,
      createdAt: new Date().toISOString(),
      size: files.reduce((sum, f) => sum + f.size, 0),
      sha256: createHash('sha256').update(sums).digest('hex'),
      files,
      tables,
    };
    await writeState(path.join(partial, 'manifest.json'), manifest);
    await rename(partial, path.join(base, backupId));
    return toInfo(manifest);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

export async function listBackups(root: string, id: string): Promise<BackupInfo[]> {
  const base = siteBackups(root, id);
  if (!existsSync(base)) return [];
  const ids = (await readdir(base)).filter((entry) => /^[a-z0-9-]{1,64}$/.test(entry));
  const manifests = await Promise.all(ids.map((backupId) => readManifest(root, id, backupId)));
  return manifests
    .filter((m): m is Manifest => m !== undefined)
    .map(toInfo)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export async function deleteBackup(root: string, id: string, backupId: string): Promise<void> {
  await rm(path.join(siteBackups(root, id), checkBackupId(backupId)), { recursive: true, force: true });
}

export async function deleteAllBackups(root: string, id: string): Promise<void> {
  await rm(siteBackups(root, id), { recursive: true, force: true });
}

/**
 * Exact restore: checksums first; the site shows WordPress' maintenance notice meanwhile; the database
 * is dropped and recreated (tables added since the backup disappear) and loaded from the dump;
 * wp-content is swapped for the archived one; then the table count is checked against the manifest.
 */
export async function restoreBackup(site: BackupSite, backupId: string): Promise<void> {
  const manifest = await readManifest(site.root, site.id, backupId);
  if (!manifest) throw new NotFoundError('Backup not found');
  const dir = path.join(siteBackups(site.root, site.id), backupId);
  for (const file of manifest.files) {
    if ((await sha256(path.join(dir, file.name))) !== file.sha256) {
      throw new Error(`Backup ${backupId} is damaged: ${file.name} does not match its checksum`);
    }
  }
  if (createHash('sha256').update(sumsText(manifest.files)).digest('hex') !== manifest.sha256) {
    throw new Error(`Backup ${backupId} is damaged: its manifest does not match its checksum`);
  }

  const maintenance = path.join(site.publicDir, '.maintenance');
  const work = path.join(site.siteDir, `.restore-${backupId}`);
  await writeFile(maintenance, '<?php $upgrading = time();\n', { mode: 0o644 });
  try {
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { mode: 0o700 });
    await run('/usr/bin/tar', ['-xzf', path.join(dir, FILES_FILE), '-C', work]);
    if (!existsSync(path.join(work, 'wp-content'))) throw new Error(`Backup ${backupId} holds no wp-content`);

    await site.tenants.delete(site.tenant);
    await site.tenants.create(site.tenant, site.database.password);
    await client('/usr/bin/mariadb', [...clientArgs(site.database), site.database.database], site.database, {
      input: path.join(dir, DB_FILE),
    });

    const current = path.join(site.publicDir, 'wp-content');
    if (existsSync(current)) await rename(current, path.join(work, 'wp-content.old'));
    await rename(path.join(work, 'wp-content'), current);
    if (site.owner) await run('/usr/bin/chown', ['-R', '-P', `${site.owner.uid}:${site.owner.gid}`, current]);

    const tables = await tableCount(site.database);
    if (tables !== manifest.tables) {
      throw new Error(
        `Restore of ${backupId} incomplete: ${tables} tables, the backup had ${manifest.tables}`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(maintenance, { force: true });
  }
}
