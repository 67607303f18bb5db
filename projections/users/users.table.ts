import type { Role } from '#shared/auth/roles.ts';

/** Who may sign in, with which role. Password hashes live in schema `secrets`, never here. */
export interface UsersTable {
  user_id: string;
  email: string;
  role: Role;
  active: boolean;
  source: string;
  created_at: Date;
  updated_at: Date;
}

export interface UsersDb {
  users: UsersTable;
}
