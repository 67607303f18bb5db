import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import type { ProjectHostKeysTable, ProjectSshKeysTable, SshKeysTable } from './sshKeys.table.ts';

type HostKey = { keyType: string; publicKey: string; fingerprint: string };
type EventData = {
  slug?: string;
  keyId?: number;
  name?: string;
  keyType?: string;
  bits?: number;
  fingerprint?: string;
  publicKey?: string;
  origin?: string;
  host?: string;
  port?: number;
  keys?: HostKey[];
};

/** The keyring, each project's keys and each project's pinned host keys. */
export const sshKeysProjection: Projection<ReadModelDatabase> = {
  name: 'ssh_keys',
  eventTypes: ['SshKeyAdded', 'SshKeyDeleted', 'ProjectSshKeyAdded', 'ProjectSshKeyRemoved', 'ProjectHostKeyPinned', 'ProjectHostKeyForgotten', 'ProjectDeleted'],
  tables: ['ssh_keys', 'project_ssh_keys', 'project_host_keys'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const event of events) {
      const data = event.data as EventData;
      const at = new Date(event.metadata.at);
      const actor = event.metadata.actor;
      switch (event.type) {
        case 'SshKeyAdded': {
          const row = {
            key_id: data.keyId!,
            name: data.name!,
            key_type: data.keyType!,
            bits: data.bits!,
            fingerprint: data.fingerprint!,
            public_key: data.publicKey!,
            origin: data.origin!,
            created_by: actor,
            created_at: at,
          };
          await trx.insertInto('ssh_keys').values(row).onConflict((oc) => oc.column('key_id').doUpdateSet(row)).execute();
          break;
        }
        case 'SshKeyDeleted':
          await trx.deleteFrom('ssh_keys').where('key_id', '=', data.keyId!).execute();
          await trx.updateTable('project_ssh_keys').set({ key_deleted_at: at }).where('key_id', '=', data.keyId!).execute();
          break;
        case 'ProjectSshKeyAdded': {
          const row = { project_slug: data.slug!, key_id: data.keyId!, name: data.name!, fingerprint: data.fingerprint!, added_by: actor, added_at: at, key_deleted_at: null };
          await trx
            .insertInto('project_ssh_keys')
            .values(row)
            .onConflict((oc) => oc.columns(['project_slug', 'key_id']).doUpdateSet(row))
            .execute();
          break;
        }
        case 'ProjectSshKeyRemoved':
          await trx.deleteFrom('project_ssh_keys').where('project_slug', '=', data.slug!).where('key_id', '=', data.keyId!).execute();
          break;
        case 'ProjectHostKeyPinned': {
          const row = { project_slug: data.slug!, host: data.host!, port: data.port!, keys: JSON.stringify(data.keys ?? []), pinned_by: actor, pinned_at: at };
          await trx
            .insertInto('project_host_keys')
            .values(row)
            .onConflict((oc) => oc.columns(['project_slug', 'host', 'port']).doUpdateSet(row))
            .execute();
          break;
        }
        case 'ProjectHostKeyForgotten':
          await trx.deleteFrom('project_host_keys').where('project_slug', '=', data.slug!).where('host', '=', data.host!).where('port', '=', data.port!).execute();
          break;
        case 'ProjectDeleted':
          await trx.deleteFrom('project_ssh_keys').where('project_slug', '=', data.slug!).execute();
          await trx.deleteFrom('project_host_keys').where('project_slug', '=', data.slug!).execute();
          break;
      }
    }
  },
};

export type SshKeyRow = Selectable<SshKeysTable> & { projects: string[]; created_by_email: string | null };
export type ProjectSshKeyRow = Selectable<ProjectSshKeysTable> & { key_type: string | null; public_key: string | null };
export type ProjectHostKeyRow = Selectable<ProjectHostKeysTable>;

/** The keyring page: every live key, oldest first, with the projects that use it. */
export async function listSshKeys(db: ReadModel): Promise<SshKeyRow[]> {
  const rows = await db
    .selectFrom('ssh_keys')
    .leftJoin('users', 'users.user_id', 'ssh_keys.created_by')
    .selectAll('ssh_keys')
    .select('users.email as created_by_email')
    .select(() => [
      sql<string[]>`coalesce((select array_agg(p.project_slug order by p.project_slug) from read_model.project_ssh_keys p where p.key_id = ssh_keys.key_id), '{}')`.as('projects'),
    ])
    .orderBy('ssh_keys.key_id')
    .execute();
  return rows;
}

export function findSshKey(db: ReadModel, keyId: number): Promise<Selectable<SshKeysTable> | undefined> {
  return db.selectFrom('ssh_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
}

/** A project's keys, as added; a key since deleted from the keyring has `key_deleted_at` and no public key. */
export function projectSshKeys(db: ReadModel, slug: string): Promise<ProjectSshKeyRow[]> {
  return db
    .selectFrom('project_ssh_keys as p')
    .leftJoin('ssh_keys as k', 'k.key_id', 'p.key_id')
    .selectAll('p')
    .select(['k.key_type', 'k.public_key'])
    .where('p.project_slug', '=', slug)
    .orderBy('p.added_at')
    .execute();
}

export function projectHostKeys(db: ReadModel, slug: string): Promise<ProjectHostKeyRow[]> {
  return db.selectFrom('project_host_keys').selectAll().where('project_slug', '=', slug).orderBy('host').orderBy('port').execute();
}
