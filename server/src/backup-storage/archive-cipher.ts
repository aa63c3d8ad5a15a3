import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Encryption of backup archives before they leave the host: AES-256-GCM in chunks of 64 KiB, each
 * chunk sealed on its own, so an archive of any size streams through in constant memory and every
 * byte read back is authenticated before it is used (the STREAM construction): the nonce counts the
 * chunks, and the last chunk says it is the last, so a reordered, dropped or truncated chunk fails.
 *
 * Layout: `BERTHBK1` (8 bytes), a random salt (16 bytes), then the chunks: 64 KiB of ciphertext + its
 * 16-byte tag each, the last one shorter (possibly just a tag). Each archive's key is derived from the
 * backup key and the archive's salt (HKDF-SHA256), so no key and nonce pair is ever used twice.
 *
 * A bound archive (`BERTHBK2`, the same layout) is sealed to a name, the object key it is stored at:
 * every chunk's associated data holds that name too, so it decrypts only when read as that name. Copied
 * to another key (another backup's manifest, another instance's), it no longer decrypts there.
 */

const MAGIC = Buffer.from('BERTHBK1');
const MAGIC_BOUND = Buffer.from('BERTHBK2');
const SALT_BYTES = 16;
const HEADER_BYTES = MAGIC.length + SALT_BYTES;
const CHUNK = 64 * 1024;
const TAG = 16;

/** The archive is not one of ours, was encrypted with another key, or was changed. */
export class ArchiveCorruptError extends Error {}

/** The key that encrypts every archive, derived from the platform's encryption key. */
export function backupKeyFrom(encryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'berth backups v1', 32));
}

const archiveKey = (key: Buffer, salt: Buffer) =>
  Buffer.from(hkdfSync('sha256', key, salt, 'berth backup archive', 32));

function nonce(counter: number): Buffer {
  const iv = Buffer.alloc(12);
  iv.writeBigUInt64BE(BigInt(counter), 4);
  return iv;
}

/** `[1]` on the last chunk, `[0]` on the others: authenticated with it (and the name, if bound). */
const LAST = Buffer.from([1]);
const NOT_LAST = Buffer.from([0]);
const associatedData = (last: boolean, name: Buffer | undefined) =>
  name ? Buffer.concat([last ? LAST : NOT_LAST, name]) : last ? LAST : NOT_LAST;

/** Whether stored bytes are a bound archive (BERTHBK2), an unbound one (BERTHBK1), or neither. */
export function archiveFormat(head: Buffer): 'bound' | 'unbound' | undefined {
  const magic = head.subarray(0, MAGIC.length);
  if (magic.equals(MAGIC_BOUND)) return 'bound';
  if (magic.equals(MAGIC)) return 'unbound';
  return undefined;
}

/** Encrypts a stream; bound to `boundTo` (its object key) when given. */
export function encryptArchive(key: Buffer, boundTo?: string): Transform {
  const name = boundTo === undefined ? undefined : Buffer.from(boundTo, 'utf8');
  const magic = name ? MAGIC_BOUND : MAGIC;
  const salt = randomBytes(SALT_BYTES);
  const derived = archiveKey(key, salt);
  let counter = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let headerSent = false;

  const seal = (plain: Buffer, last: boolean): Buffer => {
    const cipher = createCipheriv('aes-256-gcm', derived, nonce(counter++));
    cipher.setAAD(associatedData(last, name));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([body, cipher.getAuthTag()]);
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      if (!headerSent) {
        this.push(Buffer.concat([magic, salt]));
        headerSent = true;
      }
      pending.push(chunk);
      pendingBytes += chunk.length;
      // Keep at least one byte back: the last chunk must be sealed as the last.
      if (pendingBytes > CHUNK) {
        let all = Buffer.concat(pending);
        while (all.length > CHUNK) {
          this.push(seal(all.subarray(0, CHUNK), false));
          all = all.subarray(CHUNK);
        }
        pending = [all];
        pendingBytes = all.length;
      }
      done();
    },
    flush(done: TransformCallback) {
      if (!headerSent) this.push(Buffer.concat([magic, salt]));
      this.push(seal(Buffer.concat(pending), true));
      done();
    },
  });
}

/**
 * Decrypts a stream; fails with ArchiveCorruptError on any change, truncation or wrong key. `boundTo`:
 * the name a bound archive must have been sealed to (an unbound archive is refused then, and a bound
 * one without it).
 */
export function decryptArchive(key: Buffer, boundTo?: string): Transform {
  const name = boundTo === undefined ? undefined : Buffer.from(boundTo, 'utf8');
  let header: Buffer | undefined;
  let derived: Buffer | undefined;
  let counter = 0;
  let buffer: Buffer = Buffer.alloc(0);
  let ended = false;

  const open = (sealed: Buffer, last: boolean): Buffer => {
    if (!derived) throw new ArchiveCorruptError('The archive has no header');
    if (sealed.length < TAG) throw new ArchiveCorruptError('The archive is truncated');
    const decipher = createDecipheriv('aes-256-gcm', derived, nonce(counter++));
    decipher.setAAD(associatedData(last, name));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG)), decipher.final()]);
    } catch {
      throw new ArchiveCorruptError('The archive does not decrypt: it was changed, or made with another key');
    }
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      try {
        if (ended) throw new ArchiveCorruptError('The archive goes on after its last chunk');
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        if (!header) {
          if (buffer.length < HEADER_BYTES) return done();
          header = buffer.subarray(0, HEADER_BYTES);
          const format = archiveFormat(header);
          if (!format) throw new ArchiveCorruptError('This is not a Berth backup archive');
          if (format === 'bound' && !name)
            throw new ArchiveCorruptError('The archive is bound to a name, and was read without one');
          if (format === 'unbound' && name)
            throw new ArchiveCorruptError(`The archive is not bound to ${boundTo}`);
          derived = archiveKey(key, header.subarray(MAGIC.length));
          buffer = buffer.subarray(HEADER_BYTES);
        }
        // A full sealed chunk is a middle one only if more bytes follow it.
        while (buffer.length > CHUNK + TAG) {
          this.push(open(buffer.subarray(0, CHUNK + TAG), false));
          buffer = buffer.subarray(CHUNK + TAG);
        }
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        if (!header) throw new ArchiveCorruptError('The archive is truncated');
        this.push(open(buffer, true));
        ended = true;
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
}
