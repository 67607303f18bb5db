import type { Selectable } from 'kysely';
import type { Role } from '#shared/auth/roles.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import type { UsersTable } from './users.table.ts';

export type UserRow = Selectable<UsersTable>;

type UserEventData = { userId: string; email?: string; role?: Role; source?: string };

/** Users by e-mail and id, for sign-in and authorization. */
export const usersProjection: Projection<ReadModelDatabase> = {
  name: 'users',
  eventTypes: ['UserRegistered', 'UserRoleChanged', 'UserDeactivated', 'UserReactivated'],
  tables: ['users'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const event of events) {
      const data = event.data as UserEventData;
      const at = new Date(event.metadata.at);
      const users = trx.updateTable('users').where('user_id', '=', data.userId);
      switch (event.type) {
        case 'UserRegistered':
          await trx
            .insertInto('users')
            .values({ user_id: data.userId, email: data.email!, role: data.role!, active: true, source: data.source!, created_at: at, updated_at: at })
            .onConflict((oc) => oc.column('user_id').doNothing())
            .execute();
          break;
        case 'UserRoleChanged':
          await users.set({ role: data.role!, updated_at: at }).execute();
          break;
        case 'UserDeactivated':
          await users.set({ active: false, updated_at: at }).execute();
          break;
        case 'UserReactivated':
          await users.set({ active: true, updated_at: at }).execute();
          break;
      }
    }
  },
};

export function findUserByEmail(db: ReadModel, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

export function findUserById(db: ReadModel, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function hasActiveAdmin(db: ReadModel): Promise<boolean> {
  const row = await db.selectFrom('users').select('user_id').where('role', '=', 'admin').where('active', '=', true).limit(1).executeTakeFirst();
  return row !== undefined;
}
