import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import mysql from 'mysql2/promise';
import { NotFoundError, ValidationError } from '../../../lib/errors.ts';
import type { BackupInfo, BackupInput, DatabaseCredentials } from '../../engine.ts';
import type { TenantNames } from '../../tenant-names.ts';
import type { TenantOps } from '../databases/engine-server.ts';
import {
  backupsOf,
  checkBackupId,
  type Manifest,
  readManifest,
  sha256,
  toInfo,
} from '../host/backup-store.ts';
import { writeState } from '../host/host.ts';
import { shell, WRITE_FILE } from '../host/sandbox-process.ts';
import { CACHE_PATH } from './page-cache.ts';
import { INSIDE, runInSandbox, type SandboxSite } from './site-sandbox.ts';

/**
 * WordPress backups: the tenant database dumped with the tenant's own credentials (mariadb-dump, gzip)
 * and wp-content as a tar.gz (core is reproducible, wp-config regenerated), in
 * `<root>/backups/<site id>/<backup id>/` (root, 700: outside the site, so SFTP cannot touch them) with
 * a manifest and SHA256SUMS. A backup is written to `<id>.partial/` and renamed when complete.
 *
 * Root never opens a path in the site: `tar` reads wp-content (and, on restore, writes it) as the site
 * user inside the site's sandbox, streaming the archive through a pipe to or from the backup folder.
 */

const DB_FILE = 'db.sql.gz';
const FILES_FILE = 'files.tar.gz';

export interface BackupSite {
  root: string;
  id: string;
  /** The site's sandbox: where its files are read and written, as its user. */
  sandbox: SandboxSite;
  database: DatabaseCredentials;
  tenant: TenantNames;
  tenants: TenantOps;
  /** Size of the site's database when a restore makes it anew, MiB. */
  databaseMb: number;
  /** The largest archive of the site's files accepted (its disk size: nothing larger can be real). */
  maxArchiveBytes: number;
}

/** The site's files do not fit in a backup (a sparse file, or more than the site's disk holds). */
class BackupTooLargeError extends ValidationError {}

/** Passes bytes through, failing once more than `max` went by. */
function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) {
        done(
          new BackupTooLargeError(
            `The site's files are larger than its storage (${Math.round(max / 1048576)} MB) allows in a backup`,
          ),
        );
        return;
      }
      done(null, chunk);
    },
  });
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

export async function createBackup(site: BackupSite, input: BackupInput): Promise<BackupInfo> {
  const name = input.name.trim();
  const note = (input.note ?? '').trim();
  if (name.length < 1 || name.length > 100)
    throw new ValidationError('A backup name must be 1 to 100 characters');
  if (note.length > 500) throw new ValidationError('A backup note must be at most 500 characters');
  const backupId = checkBackupId(input.backupId ?? randomUUID());
  const existing = await readManifest(site.root, site.id, backupId);
  if (existing) return toInfo(existing);

  const base = backupsOf(site.root, site.id);
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
    // --sparse: holes are recorded, not read as gigabytes of zeros.
    const limit = capped(site.maxArchiveBytes);
    const written = pipeline(limit, createWriteStream(path.join(partial, FILES_FILE), { mode: 0o600 }));
    await Promise.all([
      runInSandbox(
        site.sandbox,
        [
          '/usr/bin/tar',
          '--sparse',
          `--exclude=${CACHE_PATH}`,
          '-czf',
          '-',
          '-C',
          INSIDE.public,
          'wp-content',
        ],
        {
          output: limit,
        },
      ),
      written,
    ]);
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

/**
 * Exact restore: checksums first; the site shows WordPress' maintenance notice meanwhile; the database
 * is dropped and recreated (tables added since the backup disappear) and loaded from the dump;
 * wp-content is swapped for the archived one; then the table count is checked against the manifest.
 */
export async function restoreBackup(site: BackupSite, backupId: string): Promise<void> {
  const manifest = await readManifest(site.root, site.id, backupId);
  if (!manifest) throw new NotFoundError('Backup not found');
  const dir = path.join(backupsOf(site.root, site.id), backupId);
  for (const file of manifest.files) {
    if ((await sha256(path.join(dir, file.name))) !== file.sha256) {
      throw new Error(`Backup ${backupId} is damaged: ${file.name} does not match its checksum`);
    }
  }
  if (createHash('sha256').update(sumsText(manifest.files)).digest('hex') !== manifest.sha256) {
    throw new Error(`Backup ${backupId} is damaged: its manifest does not match its checksum`);
  }

  // In the sandbox, as the site user: the maintenance notice, the archive unpacked in the site's tmp/
  // (same disk as public/, so the swap is a rename), the swap, the clean-up.
  const work = `${INSIDE.disk}/tmp/.berth-restore-${backupId}`;
  const publicDir = `${INSIDE.disk}/public`;
  await runInSandbox(
    site.sandbox,
    shell(
      `rm -rf "$2"; mkdir -m 700 "$2"
tar -xzf - -C "$2" --no-same-owner
test -d "$2/wp-content" || { echo "the backup holds no wp-content" >&2; exit 3; }
printf '%s\\n' '<?php $upgrading = time();' | { set -- "$1/.maintenance" 644; ${WRITE_FILE}; }`,
      publicDir,
      work,
    ),
    { input: createReadStream(path.join(dir, FILES_FILE)) },
  );
  try {
    await site.tenants.delete(site.tenant);
    await site.tenants.create(site.tenant, site.database.password, site.databaseMb);
    await client('/usr/bin/mariadb', [...clientArgs(site.database), site.database.database], site.database, {
      input: path.join(dir, DB_FILE),
    });
    await runInSandbox(
      site.sandbox,
      shell(
        `if [ -e "$1/wp-content" ] || [ -L "$1/wp-content" ]; then mv "$1/wp-content" "$2/wp-content.old"; fi
mv "$2/wp-content" "$1/wp-content"`,
        publicDir,
        work,
      ),
    );
    const tables = await tableCount(site.database);
    if (tables !== manifest.tables) {
      throw new Error(
        `Restore of ${backupId} incomplete: ${tables} tables, the backup had ${manifest.tables}`,
      );
    }
  } finally {
    await runInSandbox(site.sandbox, shell('rm -rf "$2"; rm -f "$1/.maintenance"', publicDir, work));
  }
}
