import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface UserTable {
  id: Generated<string>;
  username: string;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  account_type: 'individual' | 'company';
  company_name: string | null;
  role: Generated<'user' | 'admin'>;
  avatar_url: string | null;
  referral_code: string | null;
  /** Bumped by a password change or reset: access tokens signed at an older version are refused. */
  token_version: Generated<number>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date>;
}

export type UserRow = Selectable<UserTable>;
export type NewUserRow = Insertable<UserTable>;
export type UserRowUpdate = Updateable<UserTable>;
