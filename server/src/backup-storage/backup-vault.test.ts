import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server } from '../../test/s3-server.ts';
import { ArchiveCorruptError, backupKeyFrom, decryptArchive, encryptArchive } from './archive-cipher.ts';
import {
  ArchiveTamperedError,
  type BackupVault,
  backupVault,
  ManifestMisplacedError,
} from './backup-vault.ts';
import { folderStore, type ObjectStore } from './object-store.ts';
import { s3Store } from './s3-store.ts';

const key = backupKeyFrom(randomBytes(32));

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function roundTrip(plain: Buffer, chunkSize = 10_000): Promise<Buffer> {
  const chunks = [];
  for (let i = 0; i < plain.length; i += chunkSize) chunks.push(plain.subarray(i, i + chunkSize));
  const sealed = await collect(Readable.from(chunks).pipe(encryptArchive(key)));
  return collect(Readable.from([sealed]).pipe(decryptArchive(key)));
}

describe('archive encryption', () => {
  it('round-trips archives of every size around the chunk boundaries', async () => {
    for (const size of [0, 1, 65_535, 65_536, 65_537, 3 * 65_536, 200_001]) {
      const plain = randomBytes(size);
      expect((await roundTrip(plain)).equals(plain), `size ${size}`).toBe(true);
    }
  });

  it('refuses a flipped byte, a truncation, an appended chunk and another key', async () => {
    const plain = randomBytes(150_000);
    const sealed = await collect(Readable.from([plain]).pipe(encryptArchive(key)));
    const open = (bytes: Buffer, withKey = key) =>
      collect(Readable.from([bytes]).pipe(decryptArchive(withKey)));
    const flipped = Buffer.from(sealed);
    flipped[70_000] = (flipped[70_000] ?? 0) ^ 1;
    await expect(open(flipped)).rejects.toThrow(ArchiveCorruptError);
    // Cut at a chunk boundary: every chunk left authenticates, but none says it is the last.
    await expect(open(sealed.subarray(0, 24 + 2 * (65_536 + 16)))).rejects.toThrow(ArchiveCorruptError);
    await expect(open(Buffer.concat([sealed, sealed.subarray(24)]))).rejects.toThrow(ArchiveCorruptError);
    await expect(open(sealed, backupKeyFrom(randomBytes(32)))).rejects.toThrow(ArchiveCorruptError);
    expect((await open(sealed)).equals(plain)).toBe(true);
  });

  it('seals a bound archive to its name: read under another name, or unbound, it is refused', async () => {
    const plain = randomBytes(150_000);
    const sealed = await collect(
      Readable.from([plain]).pipe(encryptArchive(key, 'platform/p-1/manifest.json.enc')),
    );
    expect(sealed.subarray(0, 8).toString()).toBe('BERTHBK2');
    const open = (name?: string) => collect(Readable.from([sealed]).pipe(decryptArchive(key, name)));
    expect((await open('platform/p-1/manifest.json.enc')).equals(plain)).toBe(true);
    await expect(open('platform/p-2/manifest.json.enc')).rejects.toThrow(ArchiveCorruptError);
    await expect(open()).rejects.toThrow(ArchiveCorruptError);
    const unbound = await collect(Readable.from([plain]).pipe(encryptArchive(key)));
    await expect(
      collect(Readable.from([unbound]).pipe(decryptArchive(key, 'platform/p-1/manifest.json.enc'))),
    ).rejects.toThrow(ArchiveCorruptError);
  });
});

/** The same behaviour from both stores: a folder of this host and a real S3-compatible server. */
describe.each(['folder', 's3'] as const)('backup vault on a %s store', (kind) => {
  let store: ObjectStore;
  let vault: BackupVault;
  let stop = async () => {};
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'berth-vault-'));
    if (kind === 's3') {
      const s3 = await startS3Server();
      store = s3Store(s3.settings);
      stop = s3.stop;
    } else store = folderStore(path.join(dir, 'store'));
    vault = backupVault({ store, key, spoolDir: path.join(dir, 'spool') });
  });
  afterAll(async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores parts encrypted with their SHA-256, reads them back checked, and downloads them as a tar', async () => {
    const db = randomBytes(300_000);
    const files = Buffer.from('hello '.repeat(20_000));
    const seen: number[] = [];
    const { archive, parts } = vault.writer('instances/i1/b1', (bytes) => seen.push(bytes));
    await archive.part('db.sql.gz', Readable.from([db]));
    await archive.part('files.tar.gz', Readable.from([files]));
    expect(parts.map((p) => [p.name, p.plainSize])).toEqual([
      ['db.sql.gz', db.length],
      ['files.tar.gz', files.length],
    ]);
    expect(seen.at(-1)).toBe(db.length + files.length);
    // What the store holds is not the plain text, and its hash is the recorded one.
    const stored = await collect(await store.get('instances/i1/b1/files.tar.gz.enc'));
    expect(stored.includes(Buffer.from('hello hello'))).toBe(false);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(parts[1]?.sha256);

    const opened = await vault.open('instances/i1/b1', parts);
    expect((await collect(opened.archive.part('db.sql.gz'))).equals(db)).toBe(true);
    expect((await collect(opened.archive.part('files.tar.gz'))).equals(files)).toBe(true);
    await opened.close();

    const tar = await collect(vault.download('instances/i1/b1', parts, new Date()));
    const tarDir = await mkdtemp(path.join(dir, 'tar-'));
    await writeFile(path.join(tarDir, 'b.tar'), tar);
    const { execFileSync } = await import('node:child_process');
    execFileSync('tar', ['-xf', 'b.tar'], { cwd: tarDir });
    expect((await readFile(path.join(tarDir, 'db.sql.gz'))).equals(db)).toBe(true);
    expect((await readFile(path.join(tarDir, 'files.tar.gz'))).equals(files)).toBe(true);
  });

  it('refuses to open a tampered part before handing anything out', async () => {
    const { archive, parts } = vault.writer('instances/i2/b1');
    await archive.part('dump.sql.gz', Readable.from([randomBytes(100_000)]));
    const body = await collect(await store.get('instances/i2/b1/dump.sql.gz.enc'));
    body[5000] = (body[5000] ?? 0) ^ 0xff;
    await store.put('instances/i2/b1/dump.sql.gz.enc', Readable.from([body]));
    await expect(vault.open('instances/i2/b1', parts)).rejects.toThrow(ArchiveTamperedError);
    if (kind === 's3') expect(await readdir(path.join(dir, 'spool'))).toEqual([]);
  });

  it('lists, keeps encrypted JSON, and removes', async () => {
    await vault.putJson('instances/i3/b1/manifest.json.enc', { id: 'b1', tables: 3 });
    expect(await vault.getJson('instances/i3/b1/manifest.json.enc', { id: 'b1' })).toEqual({
      id: 'b1',
      tables: 3,
    });
    expect(await store.list('instances/i3/')).toEqual(['instances/i3/b1/manifest.json.enc']);
    await vault.remove('instances/i3/b1', [], ['instances/i3/b1/manifest.json.enc']);
    expect(await store.list('instances/i3/')).toEqual([]);
    expect(await store.removeUnfinished('instances/')).toBe(0);
  });

  it('refuses a manifest copied onto another backup’s key, even one that claims to be that backup', async () => {
    const keyOf = (instance: string, backup: string) => `instances/${instance}/${backup}/manifest.json.enc`;
    await vault.putJson(keyOf('i4', 'b1'), { id: 'b1', instanceId: 'i4', size: 1 });
    await vault.putJson(keyOf('i4', 'b2'), { id: 'b2', instanceId: 'i4', size: 2 });
    // Someone with write access to the bucket but not the key can only move stored bytes: b1's
    // manifest onto b2's key (b2 would then read as b1's parts and facts).
    await store.put(keyOf('i4', 'b2'), Readable.from([await collect(await store.get(keyOf('i4', 'b1')))]));
    await expect(vault.getJson(keyOf('i4', 'b2'), { id: 'b2', instanceId: 'i4' })).rejects.toThrow(
      new ManifestMisplacedError(
        `The manifest at ${keyOf('i4', 'b2')} does not belong there: it was copied from another backup, changed, or written with another key`,
      ),
    );
    // … and onto another instance's key.
    await store.put(keyOf('i5', 'b1'), Readable.from([await collect(await store.get(keyOf('i4', 'b1')))]));
    await expect(vault.getJson(keyOf('i5', 'b1'), { id: 'b1', instanceId: 'i5' })).rejects.toThrow(
      ManifestMisplacedError,
    );
    // The manifest where it was written still reads.
    expect(await vault.getJson(keyOf('i4', 'b1'), { id: 'b1', instanceId: 'i4' })).toEqual({
      id: 'b1',
      instanceId: 'i4',
      size: 1,
    });
  });

  it('reads a manifest written before manifests were bound only where its ids say it belongs', async () => {
    // What earlier versions wrote: the same encryption, not bound to the key (format BERTHBK1).
    const unbound = await collect(
      Readable.from([Buffer.from(JSON.stringify({ id: 'b1', instanceId: 'i6' }))]).pipe(encryptArchive(key)),
    );
    expect(unbound.subarray(0, 8).toString()).toBe('BERTHBK1');
    await store.put('instances/i6/b1/manifest.json.enc', Readable.from([unbound]));
    expect(await vault.getJson('instances/i6/b1/manifest.json.enc', { id: 'b1', instanceId: 'i6' })).toEqual({
      id: 'b1',
      instanceId: 'i6',
    });
    await store.put('instances/i6/b2/manifest.json.enc', Readable.from([unbound]));
    await expect(
      vault.getJson('instances/i6/b2/manifest.json.enc', { id: 'b2', instanceId: 'i6' }),
    ).rejects.toThrow(
      new ManifestMisplacedError(
        'The manifest at instances/i6/b2/manifest.json.enc describes another backup (its id is "b1", not "b2"): it was copied or swapped there',
      ),
    );
  });
});
