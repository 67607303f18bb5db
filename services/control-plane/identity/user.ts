import { createHash } from 'node:crypto';
import type { Role } from '#shared/auth/roles.ts';

/** How the account came to be. */
export type UserSource = 'cli' | 'bootstrap' | 'oidc';

export type UserEvent =
  | { type: 'UserRegistered'; data: { userId: string; email: string; role: Role; source: UserSource } }
  | { type: 'UserRoleChanged'; data: { userId: string; role: Role } }
  | { type: 'UserDeactivated'; data: { userId: string } }
  | { type: 'UserReactivated'; data: { userId: string } }
  | { type: 'UserPasswordChanged'; data: { userId: string } };

export type UserState =
  | { status: 'unregistered' }
  | { status: 'active' | 'inactive'; userId: string; email: string; role: Role; hasPassword: boolean };

export const initialUserState = (): UserState => ({ status: 'unregistered' });

export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return { status: 'active', userId: event.data.userId, email: event.data.email, role: event.data.role, hasPassword: false };
    case 'UserRoleChanged':
      return state.status === 'unregistered' ? state : { ...state, role: event.data.role };
    case 'UserDeactivated':
      return state.status === 'unregistered' ? state : { ...state, status: 'inactive' };
    case 'UserReactivated':
      return state.status === 'unregistered' ? state : { ...state, status: 'active' };
    case 'UserPasswordChanged':
      return state.status === 'unregistered' ? state : { ...state, hasPassword: true };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** E-mails are unique case-insensitively: compare and store them trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * A user's id derives from the normalized e-mail, so registering the same e-mail twice lands on the
 * same stream and the event store's version check refuses the second one, with no read model race.
 */
export function userIdFor(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 24);
}

export const userStream = (userId: string): string => `user-${userId}`;

/** A plausible e-mail address: something@domain.tld, no spaces, at most 254 characters. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}
