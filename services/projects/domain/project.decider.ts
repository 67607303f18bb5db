import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolveProject, gitUrlProblem, initialProjectState, type ProjectEvent, type ProjectState } from './project.ts';

export type ProjectCommand =
  | { type: 'CreateProject'; slug: string; name: string; webhookNonce: string }
  | { type: 'SetProjectRepository'; gitRepo: string }
  | { type: 'RotateProjectWebhook'; webhookNonce: string }
  | { type: 'DeleteProject'; confirmName: string };

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
