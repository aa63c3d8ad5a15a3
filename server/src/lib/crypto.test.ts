import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCipher, DecryptionError, ENCRYPTION_KEY_RULE, parseEncryptionKey } from './crypto.ts';

describe('secrets at rest (AES-256-GCM)', () => {
  const key = randomBytes(32);
  const cipher = createCipher(key);

  it('round-trips, with a fresh IV each time and a versioned format', () => {
    const a = cipher.encrypt('s3cret "password" ✓', 'row:1');
    const b = cipher.encrypt('s3cret "password" ✓', 'row:1');
    expect(a).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cret');
    expect(cipher.decrypt(a, 'row:1')).toBe('s3cret "password" ✓');
    expect(cipher.decrypt(b, 'row:1')).toBe('s3cret "password" ✓');
  });

  it('refuses another context, another key, a tampered value and an unknown version', () => {
    const stored = cipher.encrypt('payload', 'row:1');
    expect(() => cipher.decrypt(stored, 'row:2')).toThrow(DecryptionError);
    expect(() => createCipher(randomBytes(32)).decrypt(stored, 'row:1')).toThrow(DecryptionError);
    const [version, iv, tag, body] = stored.split('.');
    const flipped = `${body?.[0] === 'A' ? 'B' : 'A'}${body?.slice(1)}`;
    expect(() => cipher.decrypt([version, iv, tag, flipped].join('.'), 'row:1')).toThrow(DecryptionError);
    expect(() => cipher.decrypt(stored.replace(/^v1/, 'v2'), 'row:1')).toThrow(DecryptionError);
    expect(() => cipher.decrypt('not encrypted', 'row:1')).toThrow(
      'A stored secret could not be decrypted (was ENCRYPTION_KEY changed?)',
    );
  });

  it('reads a key as 64 hex characters or base64(url), and nothing else', () => {
    expect(parseEncryptionKey(key.toString('hex'))?.equals(key)).toBe(true);
    expect(parseEncryptionKey(key.toString('base64'))?.equals(key)).toBe(true);
    expect(parseEncryptionKey(key.toString('base64url'))?.equals(key)).toBe(true);
    for (const bad of [
      '',
      'short',
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      'z'.repeat(64),
    ]) {
      expect(parseEncryptionKey(bad), bad).toBeUndefined();
    }
    expect(() => createCipher(randomBytes(16))).toThrow(ENCRYPTION_KEY_RULE);
  });
});
