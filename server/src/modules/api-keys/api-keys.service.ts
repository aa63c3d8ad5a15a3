import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { ApiKeyRow } from '../../db/tables/api-keys.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import {
  deleteKey,
  findKeyByHash,
  findUserKey,
  insertKey,
  replaceKey,
  touchKey,
  updateKeyMeta,
} from './api-keys.repository.ts';
import type { ApiKeyInfo, ApiKeyMeta } from './api-keys.schemas.ts';

/** Every key starts with it, so leaked keys are recognisable (secret scanners, logs). */
const KEY_PREFIX = 'berth_sk_';
const PRO_REQUIRED = 'API access requires Pro plan subscription';
export const INVALID_KEY = 'Invalid or missing API key';
const KEY_EXISTS = 'You already have an API key. Regenerate it to get a new one.';
const KEY_NOT_FOUND = 'API key not found';
/** How stale `last_used_at` may get before a request refreshes it (one write a minute, not per request). */
const TOUCH_EVERY_MS = 60_000;

/** 32 random bytes (256 bits) in base64url after the prefix. */
function newKey() {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, stored: { hash: hashKey(key), last4: key.slice(-4) } };
}

/** SHA-256 is enough for a 256-bit random secret (nothing to brute-force); no slow hash needed. */
const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    label: row.label,
    notes: row.notes,
    prefix: KEY_PREFIX,
    last4: row.last4,
    masked: `${KEY_PREFIX}…${row.last4}`,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  };
}

export interface ApiKeysDeps {
  db: Db;
  now: () => Date;
  /** Whether the user has a running Pro plan now (the subscriptions service decides). */
  hasProAccess: (userId: string) => Promise<boolean>;
}

/** The key a request presented: which key and whose. */
export interface KeyHolder {
  keyId: string;
  userId: string;
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

export function createApiKeysService({ db, now, hasProAccess }: ApiKeysDeps) {
  async function requirePro(userId: string): Promise<void> {
    if (!(await hasProAccess(userId))) throw new ForbiddenError(PRO_REQUIRED);
  }

  return {
    requirePro,

    /** The user's keys (at most one), without the secret. Allowed without Pro: a lapsed user may delete it. */
    async list(userId: string): Promise<ApiKeyInfo[]> {
      const row = await findUserKey(db, userId);
      return row ? [toInfo(row)] : [];
    },

    /** A first key for a Pro user; the whole key is in this answer only. */
    async generate(userId: string): Promise<{ apiKey: string; key: ApiKeyInfo }> {
      await requirePro(userId);
      const { key, stored } = newKey();
      const row = await insertKey(db, userId, stored);
      if (!row) throw new ConflictError(KEY_EXISTS);
      return { apiKey: key, key: toInfo(row) };
    },

    /** A new key in place of the old one, which stops working at once (or a first key). */
    async regenerate(userId: string): Promise<{ apiKey: string; key: ApiKeyInfo }> {
      await requirePro(userId);
      const { key, stored } = newKey();
      return { apiKey: key, key: toInfo(await replaceKey(db, userId, stored, now())) };
    },

    async update(userId: string, id: string, meta: ApiKeyMeta): Promise<ApiKeyInfo> {
      const row = isUuid(id) ? await updateKeyMeta(db, userId, id, meta) : undefined;
      if (!row) throw new NotFoundError(KEY_NOT_FOUND);
      return toInfo(row);
    },

    async remove(userId: string, id: string): Promise<void> {
      if (!(isUuid(id) && (await deleteKey(db, userId, id)))) throw new NotFoundError(KEY_NOT_FOUND);
    },

    /**
     * The holder of a presented key, or undefined for anything that is not a current key. Records the
     * use (at most once a minute). The Pro check is separate (`requirePro`), after the rate limit.
     */
    async identify(presented: string): Promise<KeyHolder | undefined> {
      if (!presented.startsWith(KEY_PREFIX)) return undefined;
      const row = await findKeyByHash(db, hashKey(presented));
      if (!row) return undefined;
      const at = now();
      if (!row.last_used_at || at.getTime() - row.last_used_at.getTime() >= TOUCH_EVERY_MS) {
        await touchKey(db, row.id, at);
      }
      return { keyId: row.id, userId: row.user_id };
    },
  };
}
