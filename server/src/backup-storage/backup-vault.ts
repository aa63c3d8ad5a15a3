import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ArchiveReader, ArchiveWriter } from '../provisioning/engine.ts';
import { ArchiveCorruptError, archiveFormat, decryptArchive, encryptArchive } from './archive-cipher.ts';
import type { ObjectStore } from './object-store.ts';
import { type TarEntry, tarOf } from './tar-stream.ts';

/**
 * The platform's backup storage: every part an engine writes is encrypted on this host (archive-cipher.ts),
 * hashed (SHA-256 of exactly the bytes stored) and streamed to the store; once stored it is read back
 * and its hash checked. Before a restore every part is checked again (downloaded into a spool folder of
 * this host while hashing, for a bucket) and only then handed to the engine, decrypted as it is read.
 * Neither the drivers nor their engines know where archives go.
 */

/** One stored part of a backup. */
export interface StoredPart {
  name: string;
  /** Bytes stored (encrypted). */
  size: number;
  /** SHA-256 (hex) of the stored bytes. */
  sha256: string;
  /** Bytes as the engine wrote them (what a download holds). */
  plainSize: number;
}

/** A stored part no longer has the checksum it was stored with (changed, truncated, or replaced). */
export class ArchiveTamperedError extends Error {}

/**
 * A manifest that does not belong at the key it was read from: copied or swapped there from another
 * backup (or instance), changed, or written with another key.
 */
export class ManifestMisplacedError extends Error {}

const PART_NAME = /^[a-z0-9][a-z0-9.-]{0,63}$/;
const stored = (prefix: string, name: string) => `${prefix}/${name}.enc`;

async function sha256Of(body: Readable, into?: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  if (into) await pipeline(body, tap, createWriteStream(into, { mode: 0o600 }));
  else
    await pipeline(body, tap, async (source: AsyncIterable<Buffer>) => {
      for await (const _ of source);
    });
  return { sha256: hash.digest('hex'), size };
}

export interface BackupVault {
  readonly store: ObjectStore;
  /**
   * An archive writer storing parts under `prefix`; `parts` fills as they are stored; `onBytes` hears
   * the bytes written so far (all parts together, before encryption).
   */
  writer(prefix: string, onBytes?: (bytes: number) => void): { archive: ArchiveWriter; parts: StoredPart[] };
  /**
   * The archive under `prefix`, every part checked against `parts` first (ArchiveTamperedError when one
   * differs); `close()` removes what was spooled.
   */
  open(prefix: string, parts: StoredPart[]): Promise<{ archive: ArchiveReader; close(): Promise<void> }>;
  /** The parts, decrypted, as one tar stream (a download). */
  download(prefix: string, parts: StoredPart[], mtime: Date): Readable;
  /** Removes the parts (and `extra` keys) under `prefix`. */
  remove(prefix: string, parts: readonly Pick<StoredPart, 'name'>[], extra?: string[]): Promise<void>;
  /**
   * A small encrypted JSON object (manifests, so storage alone tells what it holds), bound to its key:
   * the key is the associated data of its encryption, so it reads back only from that key.
   */
  putJson(key: string, value: unknown): Promise<void>;
  /**
   * The JSON object at `key`, when it belongs there: it decrypts as bound to `key`, and it carries the
   * fields of `names` with those values (the ids its key is made of). Objects written before objects
   * were bound (format BERTHBK1) are read when their fields name this key. ManifestMisplacedError
   * otherwise.
   */
  getJson(key: string, names: Record<string, string>): Promise<unknown>;
}

export function backupVault(options: { store: ObjectStore; key: Buffer; spoolDir: string }): BackupVault {
  const { store, key, spoolDir } = options;

  const decrypted = (source: () => Promise<Readable>): Readable => {
    const out = new PassThrough();
    source()
      .then((body) => pipeline(body, decryptArchive(key), out))
      .catch((error: unknown) => out.destroy(error as Error));
    return out;
  };

  return {
    store,

    writer(prefix, onBytes) {
      const parts: StoredPart[] = [];
      let total = 0;
      const archive: ArchiveWriter = {
        async part(name, source) {
          if (!PART_NAME.test(name) || parts.some((p) => p.name === name))
            throw new Error(`Invalid or repeated archive part name ${JSON.stringify(name)}`);
          let plainSize = 0;
          const hash = createHash('sha256');
          let size = 0;
          const count = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              plainSize += chunk.length;
              total += chunk.length;
              onBytes?.(total);
              done(null, chunk);
            },
          });
          const tap = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              hash.update(chunk);
              size += chunk.length;
              done(null, chunk);
            },
          });
          const body = new PassThrough();
          const objectKey = stored(prefix, name);
          const [piped, put] = await Promise.allSettled([
            pipeline(source, count, encryptArchive(key), tap, body),
            store.put(objectKey, body),
          ]);
          if (piped.status === 'rejected') throw piped.reason;
          if (put.status === 'rejected') throw put.reason;
          const sha256 = hash.digest('hex');
          // Read back what the store holds now: it must be exactly what was sent.
          const check = await sha256Of(await store.get(objectKey));
          if (check.sha256 !== sha256 || check.size !== size)
            throw new ArchiveTamperedError(`The stored ${name} does not match what was uploaded`);
          parts.push({ name, size, sha256, plainSize });
        },
      };
      return { archive, parts };
    },

    async open(prefix, parts) {
      const spool = store.kind === 's3' ? path.join(spoolDir, randomBytes(8).toString('hex')) : undefined;
      if (spool) await mkdir(spool, { recursive: true, mode: 0o700 });
      const close = async () => {
        if (spool) await rm(spool, { recursive: true, force: true });
      };
      try {
        for (const part of parts) {
          const found = await sha256Of(
            await store.get(stored(prefix, part.name)),
            spool && path.join(spool, part.name),
          );
          if (found.sha256 !== part.sha256 || found.size !== part.size)
            throw new ArchiveTamperedError(
              `The backup is damaged: ${part.name} does not match its SHA-256 checksum`,
            );
        }
      } catch (error) {
        await close();
        throw error;
      }
      const names = parts.map((p) => p.name);
      const archive: ArchiveReader = {
        parts: names,
        part(name) {
          if (!names.includes(name)) throw new ArchiveTamperedError(`The backup has no ${name}`);
          return decrypted(async () =>
            spool ? createReadStream(path.join(spool, name)) : store.get(stored(prefix, name)),
          );
        },
      };
      return { archive, close };
    },

    download(prefix, parts, mtime) {
      const entries: TarEntry[] = parts.map((part) => ({
        name: part.name,
        size: part.plainSize,
        open: () => decrypted(() => store.get(stored(prefix, part.name))),
      }));
      return tarOf(entries, mtime);
    },

    async remove(prefix, parts, extra = []) {
      for (const part of parts) await store.remove(stored(prefix, part.name));
      for (const other of extra) await store.remove(other);
    },

    async putJson(objectKey, value) {
      const body = new PassThrough();
      body.end(JSON.stringify(value));
      const encrypted = new PassThrough();
      await Promise.all([
        pipeline(body, encryptArchive(key, objectKey), encrypted),
        store.put(objectKey, encrypted),
      ]);
    },

    async getJson(objectKey, names) {
      const chunks: Buffer[] = [];
      for await (const chunk of await store.get(objectKey)) chunks.push(chunk as Buffer);
      const stored = Buffer.concat(chunks);
      const bound = archiveFormat(stored) === 'bound';
      const plain: Buffer[] = [];
      try {
        // Unbound (BERTHBK1): from before objects were bound; its fields must name this key (below).
        await pipeline(
          Readable.from([stored]),
          bound ? decryptArchive(key, objectKey) : decryptArchive(key),
          async (source: AsyncIterable<Buffer>) => {
            for await (const chunk of source) plain.push(chunk);
          },
        );
      } catch (error) {
        if (bound && error instanceof ArchiveCorruptError)
          throw new ManifestMisplacedError(
            `The manifest at ${objectKey} does not belong there: it was copied from another backup, changed, or written with another key`,
          );
        throw error;
      }
      const value = JSON.parse(Buffer.concat(plain).toString('utf8')) as unknown;
      const fields = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      // An unbound manifest with nothing to check it by could have come from anywhere.
      if (!bound && Object.keys(names).length === 0)
        throw new ManifestMisplacedError(`The manifest at ${objectKey} is not bound to its place`);
      const wrong = Object.entries(names).filter(([name, expected]) => fields[name] !== expected);
      if (wrong.length > 0)
        throw new ManifestMisplacedError(
          `The manifest at ${objectKey} describes another backup (${wrong
            .map(([name, expected]) => `its ${name} is ${JSON.stringify(fields[name])}, not "${expected}"`)
            .join('; ')}): it was copied or swapped there`,
        );
      return value;
    },
  };
}
