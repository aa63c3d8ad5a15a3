import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface PasswordResetTokenTable {
  id: Generated<string>;
  user_id: string;
  /** sha-256 of the token, hex. */
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: ColumnType<Date, never, never>;
}

export type PasswordResetTokenRow = Selectable<PasswordResetTokenTable>;
export type NewPasswordResetTokenRow = Insertable<PasswordResetTokenTable>;
