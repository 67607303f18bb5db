import { randomBytes } from 'node:crypto';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { gitAccessProblem, type GitAccess } from '#shared/git/gitAccess.ts';
import { gitUrlProblem, projectStream, sameName, slugify } from '#services/projects/domain/project.ts';
import { projectDecider, RepositoryUrlError, SlugTakenError, type ProjectCommand } from '#services/projects/domain/project.decider.ts';

const MAX_SLUG_TRIES = 50;

/** 128 random bits: a project's push hook token is HMAC-SHA256 of its slug and this (project.ts). */
const webhookNonce = (): string => randomBytes(16).toString('base64url');

/** A project of that name exists already (under `slug`): creating it again is refused. */
export class ProjectExistsError extends DomainError {
  constructor(
    readonly slug: string,
    name: string,
  ) {
    super(`a project named ${name} already exists`);
  }
}

/**
 * Project commands: creation finds a free slug; the rest address a project by slug. `gitAccess`
 * says which repositories git may read here (FORJA_GIT_FILE_ROOTS, FORJA_GIT_ALLOW_HOSTS).
 */
export function projectService(store: EventStore, gitAccess: GitAccess) {
  const run = (slug: string, command: ProjectCommand, metadata: EventMetadata) => handleCommand(store, projectDecider, projectStream(slug), command, { metadata });
  /**
   * Why a repository URL is refused, or null: its form (the decider's rule), then whether git may
   * read it on this platform. Refusing here, at the API, answers the developer at once; the
   * executor checks again before git runs (the settings may have changed, a name may resolve to a
   * private address).
   */
  const repositoryProblem = (gitRepo: string): string | null => gitUrlProblem(gitRepo) ?? gitAccessProblem(gitRepo, gitAccess);

  return {
    repositoryProblem,
    /**
     * Creates a project named `name` under the first free slug (`acme`, `acme-2`, …). The same name
     * twice is refused; a different name that slugifies alike gets the next slug.
     */
    async create(name: string, metadata: EventMetadata) {
      const trimmed = name.trim().replace(/\s+/g, ' ');
      const base = slugify(trimmed);
      if (!base) throw new DomainError('the name needs at least one letter or digit', 'invalid');
      for (let attempt = 1; attempt <= MAX_SLUG_TRIES; attempt++) {
        const slug = attempt === 1 ? base : `${base}-${attempt}`;
        try {
          const result = await run(slug, { type: 'CreateProject', slug, name: trimmed, webhookNonce: webhookNonce() }, metadata);
          return { slug, name: trimmed, lastGlobalPosition: result.lastGlobalPosition };
        } catch (error) {
          if (!(error instanceof SlugTakenError)) throw error;
          if (sameName(error.holderName, trimmed)) throw new ProjectExistsError(slug, error.holderName);
        }
      }
      throw new DomainError(`too many projects with names like ${trimmed}`);
    },
    /** The project's repository as its events say (the read model may not show a just-created project yet). */
    async repositoryOf(slug: string): Promise<string | null> {
      const { state } = await aggregateStream(store, projectDecider, projectStream(slug));
      return state.status === 'live' ? state.gitRepo : null;
    },
    setRepository(slug: string, gitRepo: string, metadata: EventMetadata) {
      const problem = repositoryProblem(gitRepo.trim());
      if (problem) throw new RepositoryUrlError(problem);
      return run(slug, { type: 'SetProjectRepository', gitRepo: gitRepo.trim() }, metadata);
    },
    /** A new push hook token: the one the git host has stops working at once. */
    rotateWebhook: (slug: string, metadata: EventMetadata) => run(slug, { type: 'RotateProjectWebhook', webhookNonce: webhookNonce() }, metadata),
    delete: (slug: string, confirmName: string, metadata: EventMetadata) => run(slug, { type: 'DeleteProject', confirmName }, metadata),
  };
}

export type ProjectService = ReturnType<typeof projectService>;
