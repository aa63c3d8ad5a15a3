import { type Readable, Transform, type Writable } from 'node:stream';
import { ValidationError } from '../lib/errors.ts';
import type { ArchiveWriter } from './engine.ts';

// What both drivers' backups share in writing and reading archive parts.

/**
 * Stores what `produce` writes into `into` as the archive part `name`: `into` is the writable end the
 * producer fills (a gzip, a length cap) and also what the archive reads. Both must end well; the first
 * failure is thrown, and the other side is torn down with it (a storage failure ends the producer's
 * pipe, so a dump does not wait forever on a reader that is gone).
 */
export async function pipePart(
  archive: ArchiveWriter,
  name: string,
  into: Writable & Readable,
  produce: () => Promise<unknown>,
): Promise<void> {
  const stored = archive.part(name, into).catch((error: unknown) => {
    into.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  });
  const produced = produce().catch((error: unknown) => {
    into.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  });
  const [made, kept] = await Promise.allSettled([produced, stored]);
  if (made.status === 'rejected') throw made.reason;
  if (kept.status === 'rejected') throw kept.reason;
}

/** A backup or restore larger than the instance's storage (a sparse file, or more than its disk holds). */
class BackupTooLargeError extends ValidationError {}

/**
 * Passes bytes through, failing once more than `max` went by: nothing an instance's storage holds can be
 * larger, so anything larger is a sparse file read as zeros or a forged archive. `what` starts the
 * customer's message ("The site's files are larger than its storage").
 */
export function capped(max: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) {
        done(
          new BackupTooLargeError(`${what} ${Math.round(max / 1048576)} MB allows in a backup or restore`),
        );
        return;
      }
      done(null, chunk);
    },
  });
}
