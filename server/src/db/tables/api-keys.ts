import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface ApiKeyTable {
  id: Generated<string>;
  user_id: string;
  /** sha-256 of the whole key, hex: the key itself is never stored. */
  key_hash: string;
  /** The key's last four characters, to recognise it in the list. */
  last4: string;
  label: Generated<string>;
  notes: Generated<string>;
  created_at: ColumnType<Date, Date | undefined, Date>;
  /** Updated at most once a minute (a write per request would cost every call). */
  last_used_at: Date | null;
}

export type ApiKeyRow = Selectable<ApiKeyTable>;
export type NewApiKeyRow = Insertable<ApiKeyTable>;

export interface ApiIdempotencyTable {
  user_id: string;
  key: string;
  /** sha-256 of method, path and canonical JSON body of the first request. */
  request_hash: string;
  /** The first answer's status; null while it is still being made. */
  status: number | null;
  body: ColumnType<unknown, string | null, string | null>;
  created_at: ColumnType<Date, never, Date>;
}
