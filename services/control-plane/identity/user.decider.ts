import type { Role } from '#shared/auth/roles.ts';
import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolveUser, initialUserState, type UserEvent, type UserSource, type UserState } from './user.ts';

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; email: string; role: Role; source: UserSource }
  | { type: 'ChangeUserRole'; role: Role }
  | { type: 'DeactivateUser' }
  | { type: 'ReactivateUser' }
  | { type: 'RecordPasswordChange' };

function decide(command: UserCommand, state: UserState): UserEvent[] {
  if (command.type === 'RegisterUser') {
    if (state.status !== 'unregistered') throw new DomainError(`a user with e-mail ${state.email} already exists`);
    return [{ type: 'UserRegistered', data: { userId: command.userId, email: command.email, role: command.role, source: command.source } }];
  }
  if (state.status === 'unregistered') throw new DomainError('no such user', 'not_found');
  switch (command.type) {
    case 'ChangeUserRole':
      return state.role === command.role ? [] : [{ type: 'UserRoleChanged', data: { userId: state.userId, role: command.role } }];
    case 'DeactivateUser':
      return state.status === 'inactive' ? [] : [{ type: 'UserDeactivated', data: { userId: state.userId } }];
    case 'ReactivateUser':
      return state.status === 'active' ? [] : [{ type: 'UserReactivated', data: { userId: state.userId } }];
    case 'RecordPasswordChange':
      return [{ type: 'UserPasswordChanged', data: { userId: state.userId } }];
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = { decide, evolve: evolveUser, initialState: initialUserState };
