import { PassThrough } from 'node:stream';
import { pipePart } from '../../archive-parts.ts';
import type { ArchiveReader, ArchiveWriter } from '../../engine.ts';
import { shell } from '../host/sandbox-process.ts';
import { N8N_INSIDE, type N8nSandbox, runInN8nSandbox } from './n8n-sandbox.ts';

/**
 * n8n backups: the instance's whole data folder as one tar.gz part (its SQLite database with workflows,
 * credentials and executions, and `.n8n/config` holding the encryption key the credentials are
 * encrypted with), written while n8n is stopped so the database is consistent. `tar` reads and writes
 * the folder as the instance user in its sandbox (no network); root only handles the archive stream.
 */

const DATA_PART = 'data.tar.gz';
/** A backup or restore of a large instance may take this long. */
const ARCHIVE_TIMEOUT_MS = 6 * 3_600_000;

/** Streams the data folder (n8n must be stopped) into the archive. */
export async function dumpN8nData(sandbox: N8nSandbox, archive: ArchiveWriter): Promise<void> {
  const out = new PassThrough();
  await pipePart(archive, DATA_PART, out, () =>
    runInN8nSandbox(
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
      { output: out, timeoutMs: ARCHIVE_TIMEOUT_MS },
    ),
  );
}

/** Replaces the data folder's contents with the archived ones (n8n must be stopped). */
export async function restoreN8nData(sandbox: N8nSandbox, archive: ArchiveReader): Promise<void> {
  await runInN8nSandbox(
    sandbox,
    shell(
      'find "$1" -mindepth 1 -maxdepth 1 ! -name tmp -exec rm -rf {} +\ntar -xzf - -C "$1" --no-same-owner',
      N8N_INSIDE.data,
    ),
    { input: archive.part(DATA_PART), timeoutMs: ARCHIVE_TIMEOUT_MS },
  );
}
