import type { Readable, Writable } from 'node:stream';
import type { ArchiveWriter } from '../../engine.ts';

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
