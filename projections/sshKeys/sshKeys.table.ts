import type { JSONColumnType } from 'kysely';

/** The keyring: one row per live key (a deleted key's row goes with it). */
export interface SshKeysTable {
  key_id: number;
  name: string;
  key_type: string;
  bits: number;
  fingerprint: string;
  public_key: string;
  origin: string;
  created_by: string;
  created_at: Date;
}

/** A project's keys; a key deleted from the keyring stays listed with `key_deleted_at`, so the page can say so. */
export interface ProjectSshKeysTable {
  project_slug: string;
  key_id: number;
  name: string;
  fingerprint: string;
  added_by: string;
  added_at: Date;
  key_deleted_at: Date | null;
}

/** The host keys a project pinned at each SSH server's first contact. */
export interface ProjectHostKeysTable {
  project_slug: string;
  host: string;
  port: number;
  keys: JSONColumnType<Array<{ keyType: string; publicKey: string; fingerprint: string }>>;
  pinned_by: string;
  pinned_at: Date;
}

export interface SshKeysDb {
  ssh_keys: SshKeysTable;
  project_ssh_keys: ProjectSshKeysTable;
  project_host_keys: ProjectHostKeysTable;
}
