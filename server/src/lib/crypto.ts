import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (instance credentials): AES-256-GCM with a fresh 96-bit IV per value. A stored value
 * reads `v1.<iv>.<tag>.<ciphertext>` (base64url parts), so a later format or key can sit beside it. The
 * `context` (e.g. the row it belongs to) is bound in as associated data: a value copied into another
 * row does not decrypt there.
 */
export interface Cipher {
  encrypt(plaintext: string, context: string): string;
  decrypt(stored: string, context: string): string;
}

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const ENCRYPTION_KEY_RULE =
  'ENCRYPTION_KEY must be 32 bytes, written as 64 hex characters or in base64';

/** A 32-byte key from 64 hex characters or base64 / base64url; undefined when it is neither. */
export function parseEncryptionKey(value: string): Buffer | undefined {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const key = Buffer.from(text.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''), 'base64url');
    if (key.length === KEY_BYTES) return key;
  }
  return undefined;
}

export class DecryptionError extends Error {
  constructor() {
    super('A stored secret could not be decrypted (was ENCRYPTION_KEY changed?)');
    this.name = 'DecryptionError';
  }
}

export function createCipher(key: Buffer): Cipher {
  if (key.length !== KEY_BYTES) throw new Error(ENCRYPTION_KEY_RULE);
  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'));
      return [VERSION, ...parts].join('.');
    },
    decrypt(stored, context) {
      const [version, iv, tag, body, ...rest] = stored.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined || rest.length)
        throw new DecryptionError();
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new DecryptionError();
      }
    },
  };
}

/** A cipher with a key that lives only in this process (tests, the OpenAPI generator). */
export function createEphemeralCipher(): Cipher {
  return createCipher(randomBytes(KEY_BYTES));
}
