import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolveProject, gitUrlProblem, initialProjectState, placeName, samePlace, type HostKey, type ProjectEvent, type ProjectState } from './project.ts';

export type ProjectCommand =
  | { type: 'CreateProject'; slug: string; name: string; webhookNonce: string }
  | { type: 'SetProjectRepository'; gitRepo: string }
  | { type: 'RotateProjectWebhook'; webhookNonce: string }
  /** `key` is the keyring's live key, read by the caller (a deleted or unknown key never gets here). */
  | { type: 'AddProjectSshKey'; key: { keyId: number; name: string; fingerprint: string } }
  | { type: 'RemoveProjectSshKey'; keyId: number }
  | { type: 'PinHostKey'; host: string; port: number; keys: HostKey[] }
  | { type: 'ForgetHostKey'; host: string; port: number }
  | { type: 'DeleteProject'; confirmName: string };

/** A host presented other keys than the ones pinned at its first contact: refused, both fingerprints named. */
export class HostKeyMismatchError extends DomainError {
  constructor(
    readonly place: string,
    readonly pinned: string,
    readonly presented: string,
  ) {
    super(`the host key of ${place} changed: pinned ${pinned}, now ${presented}; if the server's key really changed, an admin can forget the pinned key on the project page`);
  }
}

/** The slug is held by a live project of another name: the caller tries the next slug. */
export class SlugTakenError extends DomainError {
  constructor(readonly holderName: string) {
    super(`the slug is taken by project ${holderName}`);
  }
}

/** A repository URL the platform will not hand to git: a 422 naming the field `git_repo`. */
export class RepositoryUrlError extends DomainError {
  readonly field = 'git_repo';
  constructor(message: string) {
    super(message, 'invalid');
  }
}

function decide(command: ProjectCommand, state: ProjectState): ProjectEvent[] {
  if (command.type === 'CreateProject') {
    if (state.status === 'live') throw new SlugTakenError(state.name);
    return [{ type: 'ProjectCreated', data: { slug: command.slug, name: command.name, webhookNonce: command.webhookNonce } }];
  }
  if (state.status !== 'live') throw new DomainError('no such project', 'not_found');
  switch (command.type) {
    case 'SetProjectRepository': {
      const problem = gitUrlProblem(command.gitRepo);
      if (problem) throw new RepositoryUrlError(problem);
      return state.gitRepo === command.gitRepo ? [] : [{ type: 'ProjectRepositorySet', data: { slug: state.slug, gitRepo: command.gitRepo } }];
    }
    case 'AddProjectSshKey':
      if (state.sshKeyIds.includes(command.key.keyId)) return [];
      return [{ type: 'ProjectSshKeyAdded', data: { slug: state.slug, ...command.key } }];
    case 'RemoveProjectSshKey':
      if (!state.sshKeyIds.includes(command.keyId)) throw new DomainError(`key ${command.keyId} is not one of this project's keys`, 'not_found');
      return [{ type: 'ProjectSshKeyRemoved', data: { slug: state.slug, keyId: command.keyId } }];
    case 'PinHostKey': {
      if (command.keys.length === 0) throw new DomainError(`${placeName(command)} presented no host key`, 'invalid');
      const pinned = state.hostKeys.find((pin) => samePlace(pin, command));
      if (!pinned) return [{ type: 'ProjectHostKeyPinned', data: { slug: state.slug, host: command.host.toLowerCase(), port: command.port, keys: command.keys } }];
      const differing = command.keys.find((key) => pinned.keys.some((old) => old.keyType === key.keyType && old.publicKey !== key.publicKey));
      const shared = command.keys.some((key) => pinned.keys.some((old) => old.publicKey === key.publicKey));
      if (differing || !shared) {
        const presented = differing ?? command.keys[0]!;
        const old = pinned.keys.find((key) => key.keyType === presented.keyType) ?? pinned.keys[0]!;
        throw new HostKeyMismatchError(placeName(command), old.fingerprint, presented.fingerprint);
      }
      return [];
    }
    case 'ForgetHostKey':
      if (!state.hostKeys.some((pin) => samePlace(pin, command))) throw new DomainError(`no host key is pinned for ${placeName(command)}`, 'not_found');
      return [{ type: 'ProjectHostKeyForgotten', data: { slug: state.slug, host: command.host.toLowerCase(), port: command.port } }];
    case 'RotateProjectWebhook':
      return [{ type: 'ProjectWebhookRotated', data: { slug: state.slug, webhookNonce: command.webhookNonce } }];
    case 'DeleteProject':
      if (command.confirmName.trim() !== state.name) {
        throw new DomainError(`nothing was deleted: type the project name exactly (${state.name}) to confirm`, 'invalid');
      }
      return [{ type: 'ProjectDeleted', data: { slug: state.slug, name: state.name } }];
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const projectDecider: Decider<ProjectState, ProjectCommand, ProjectEvent> = { decide, evolve: evolveProject, initialState: initialProjectState };
