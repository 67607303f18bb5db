import { findUserByEmail, findUserById, hasActiveAdmin, usersProjection, type UserRow } from '#projections/users/users.ts';
import type { UserEvent } from '#services/control-plane/identity/user.ts';
import { event, projectionSpec } from '#test/support/projectionSpec.ts';

describe('users read model', () => {
  const spec = projectionSpec(usersProjection);
  const stream = 'user-u1';
  const registered = event<UserEvent>({ type: 'UserRegistered', data: { userId: 'u1', email: 'ana@example.com', role: 'viewer', source: 'cli' } }, { stream, metadata: { at: '2026-11-22T10:00:00.000Z' } });
  const promoted = event<UserEvent>({ type: 'UserRoleChanged', data: { userId: 'u1', role: 'admin' } }, { stream, metadata: { at: '2026-11-22T11:00:00.000Z' } });
  const deactivated = event<UserEvent>({ type: 'UserDeactivated', data: { userId: 'u1' } }, { stream, metadata: { at: '2026-11-22T12:00:00.000Z' } });
  const reactivated = event<UserEvent>({ type: 'UserReactivated', data: { userId: 'u1' } }, { stream, metadata: { at: '2026-11-22T13:00:00.000Z' } });
  const ana: UserRow = {
    user_id: 'u1',
    email: 'ana@example.com',
    role: 'viewer',
    active: true,
    source: 'cli',
    created_at: new Date('2026-11-22T10:00:00.000Z'),
    updated_at: new Date('2026-11-22T10:00:00.000Z'),
  };

  it('finds a registered user by id and by e-mail, ignoring case and spaces', async () => {
    await spec.when([registered]).then(async (db) => [await findUserById(db, 'u1'), await findUserByEmail(db, '  ANA@Example.com ')], [ana, ana]);
  });

  it('keeps the newest role and when it changed', async () => {
    await spec.given([registered]).when([promoted]).then((db) => findUserById(db, 'u1'), { ...ana, role: 'admin', updated_at: new Date('2026-11-22T11:00:00.000Z') });
  });

  it('counts only an active admin as one', async () => {
    await spec.given([registered]).when([promoted]).then(hasActiveAdmin, true);
    await spec.given([registered, promoted]).when([deactivated]).then(hasActiveAdmin, false);
    await spec.given([registered, promoted, deactivated]).when([reactivated]).then(hasActiveAdmin, true);
  });

  it('ignores a password change: hashes never reach the read model', async () => {
    const passwordChanged = event<UserEvent>({ type: 'UserPasswordChanged', data: { userId: 'u1' } }, { stream });
    await spec.given([registered]).when([passwordChanged]).then((db) => findUserById(db, 'u1'), ana);
  });

  it('replays twice to identical rows', async () => {
    const ben = event<UserEvent>({ type: 'UserRegistered', data: { userId: 'u2', email: 'ben@example.com', role: 'developer', source: 'oidc' } }, { stream: 'user-u2' });
    await spec.given([registered, ben, promoted]).when([deactivated, reactivated, deactivated]).replayTwice();
  });
});
