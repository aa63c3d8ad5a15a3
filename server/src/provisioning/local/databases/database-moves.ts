import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ArchiveReader, ArchiveWriter, DatabaseCredentials } from '../../engine.ts';

/**
 * Copies a tenant database from one server to another, each side with the tenant's own login (as
 * backups do: database-dumps.ts): the dump holds only what the tenant may read, the load runs with only
 * the tenant's rights. The dump goes through a file in `workDir/<id>` (root's, 700), removed after.
 * Fails unless the copy has as many tables as the original.
 */
export async function copyDatabase(
  dumps: {
    dump(database: DatabaseCredentials, archive: ArchiveWriter, name: string): Promise<void>;
    load(database: DatabaseCredentials, archive: ArchiveReader, name: string): Promise<void>;
    tables(database: DatabaseCredentials): Promise<number>;
  },
  from: DatabaseCredentials,
  to: DatabaseCredentials,
  work: { dir: string; part: string },
): Promise<{ tables: number }> {
  await mkdir(path.dirname(work.dir), { recursive: true, mode: 0o700 });
  await rm(work.dir, { recursive: true, force: true });
  await mkdir(work.dir, { mode: 0o700 });
  try {
    const file = (name: string) => path.join(work.dir, name);
    const parts: string[] = [];
    const writer: ArchiveWriter = {
      async part(name: string, source: Readable) {
        await pipeline(source, createWriteStream(file(name), { mode: 0o600 }));
        parts.push(name);
      },
    };
    const tables = await dumps.tables(from);
    await dumps.dump(from, writer, work.part);
    const reader: ArchiveReader = { parts, part: (name: string) => createReadStream(file(name)) };
    await dumps.load(to, reader, work.part);
    const copied = await dumps.tables(to);
    if (copied !== tables) throw new Error(`The copy has ${copied} tables, the original ${tables}`);
    return { tables };
  } finally {
    await rm(work.dir, { recursive: true, force: true });
  }
}
