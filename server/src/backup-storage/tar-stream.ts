import { PassThrough, type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * A tar (ustar) archive written on the fly from entries whose sizes are known up front: what a customer
 * downloads is the backup's parts, decrypted, one file each, without them ever being stored in the clear.
 */

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One 512-byte ustar header of a regular file; sizes past 8 GiB in GNU's base-256 form. */
function tarHeader(name: string, size: number, mtime: Date): Buffer {
  const header = Buffer.alloc(BLOCK);
  header.write(name.slice(0, 99), 0, 'utf8');
  header.write(octal(0o644, 8), 100);
  header.write(octal(0, 8), 108);
  header.write(octal(0, 8), 116);
  if (size < 8 ** 11) header.write(octal(size, 12), 124);
  else {
    header[124] = 0x80;
    header.writeBigUInt64BE(BigInt(size), 128);
  }
  header.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return header;
}

/** Fails unless exactly `size` bytes went through. */
function exactly(size: number, name: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > size) done(new Error(`${name} is longer than its recorded size`));
      else done(null, chunk);
    },
    flush(done) {
      done(seen === size ? null : new Error(`${name} is shorter than its recorded size`));
    },
  });
}

export interface TarEntry {
  name: string;
  size: number;
  open(): Readable;
}

/** The tar of `entries`, streamed one after another; a failing entry fails the stream. */
export function tarOf(entries: TarEntry[], mtime: Date): Readable {
  const out = new PassThrough();
  (async () => {
    for (const entry of entries) {
      if (!out.write(tarHeader(entry.name, entry.size, mtime)))
        await new Promise((r) => out.once('drain', r));
      await pipeline(entry.open(), exactly(entry.size, entry.name), out, { end: false });
      const pad = (BLOCK - (entry.size % BLOCK)) % BLOCK;
      if (pad > 0) out.write(Buffer.alloc(pad));
    }
    out.end(Buffer.alloc(BLOCK * 2));
  })().catch((error: unknown) => out.destroy(error as Error));
  return out;
}
