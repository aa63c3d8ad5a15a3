import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface RefreshTokenTable {
  id: Generated<string>;
  user_id: string;
  /** Tokens rotated from one sign-in share it. */
  family_id: string;
  /** sha-256 of the token, hex. */
  token_hash: string;
  expires_at: Date;
  /** Set when the token was exchanged for a new one; using it again revokes the family. */
  rotated_at: Date | null;
  revoked_at: Date | null;
  created_at: ColumnType<Date, never, never>;
}

export type RefreshTokenRow = Selectable<RefreshTokenTable>;
export type NewRefreshTokenRow = Insertable<RefreshTokenTable>;

export interface SetupTokenTable {
  /** sha-256 of the one-time first-admin token, hex. */
  token_hash: string;
  created_at: ColumnType<Date, never, never>;
}
