import { randomUUID } from 'node:crypto';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { allInstances } from '#projections/instances/instanceList.ts';
import { getProject } from '#projections/projects/projectDetail.ts';
import { listProjects } from '#projections/projects/projectList.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { InstanceSlugTakenError, instanceDecider, type InstanceCommand } from '#services/instances/domain/instance.decider.ts';
import { demoDataRefusal, instanceStream, type InstanceAction, type InstanceSettings, type InstanceSource, type ShellCloseReason, type ShellRuntime } from '#services/instances/domain/instance.ts';
import { sameName, slugify } from '#services/projects/domain/project.ts';
import { ProjectExistsError, type ProjectService } from '../projects/projectService.ts';
import { backupSources, type BackupSource } from './backupSource.ts';
import { InstanceInputError } from './instanceInputError.ts';
import { instanceSlugCandidates } from './instanceSlug.ts';

export { InstanceInputError } from './instanceInputError.ts';

/** The create input after schema validation (schemas/api/InstanceCreate.v1.json). */
export interface InstanceCreateInput {
  name: string;
  project: string;
  stage?: InstanceSettings['stage'];
  erp_version: InstanceSettings['erpVersion'];
  edition?: InstanceSettings['edition'];
  modules?: string[];
  git_repo?: string | null;
  branch?: string;
  clone_from?: string;
  /** A migration artifact's id (unique within its migration), and that migration when given. */
  from_backup?: number;
  from_migration?: string;
  upload?: { upload_id: string; dump_format: 'custom' | 'plain'; has_filestore: boolean };
  demo_data?: boolean;
}


/** Instance commands: creation (resolving or creating the project), actions, purge and push rebuilds. */
export function instanceService(store: EventStore, projects: ProjectService, readModel: ReadModel, blobs: BlobStore) {
  const backupSource = backupSources(readModel, store, blobs);
  const run = (slug: string, command: InstanceCommand, metadata: EventMetadata) => handleCommand(store, instanceDecider, instanceStream(slug), command, { metadata });

  /** The project named (or slugged) `reference`, created when there is none and `accept` takes its slug. */
  async function resolveProject(reference: string, metadata: EventMetadata, accept: (projectSlug: string) => void): Promise<{ slug: string; gitRepo: string | null }> {
    const bySlug = await getProject(readModel, reference.trim());
    if (bySlug) return { slug: bySlug.slug, gitRepo: bySlug.git_repo };
    const { rows } = await listProjects(readModel, { q: reference.trim(), pageSize: 100 });
    const byName = rows.find((row) => sameName(row.name, reference));
    if (byName) return { slug: byName.slug, gitRepo: byName.git_repo };
    if (!slugify(reference)) throw new InstanceInputError('project', 'the project name needs at least one letter or digit');
    accept(slugify(reference));
    try {
      const created = await projects.create(reference, metadata);
      return { slug: created.slug, gitRepo: null };
    } catch (error) {
      // Another request created it a moment ago (several instances of a new project at once).
      if (!(error instanceof ProjectExistsError)) throw error;
      return { slug: error.slug, gitRepo: await projects.repositoryOf(error.slug) };
    }
  }

  /** At most one source of the database; `from_migration` only with `from_backup`. */
  function checkOneSource(input: InstanceCreateInput): void {
    const given = [input.clone_from && 'clone_from', input.from_backup !== undefined && 'from_backup', input.upload && 'upload'].filter((field): field is string => Boolean(field));
    if (given.length > 1) throw new InstanceInputError(given[0]!, `choose one source for the database, not ${given.join(' and ')}`);
    if (input.from_migration !== undefined && input.from_backup === undefined) throw new InstanceInputError('from_migration', 'from_migration only says whose artifact from_backup is: give from_backup too');
  }

  async function sourceOf(input: InstanceCreateInput): Promise<InstanceSource> {
    if (input.upload) return { kind: 'upload', uploadId: input.upload.upload_id, dumpFormat: input.upload.dump_format, hasFilestore: input.upload.has_filestore };
    if (!input.clone_from) return { kind: 'empty' };
    const source = await getInstance(readModel, input.clone_from);
    if (!source) throw new InstanceInputError('clone_from', `there is no instance ${input.clone_from} to clone`);
    if (!['running', 'stopped', 'sleeping'].includes(source.status)) {
      throw new InstanceInputError('clone_from', `${input.clone_from} is ${source.status}; only a provisioned instance (running, stopped or sleeping) can be cloned`);
    }
    return { kind: 'clone', from: source.slug };
  }

  /** The backup or dump `from_backup` names, refused when the instance would run another version than its database's. */
  async function fromBackup(input: InstanceCreateInput, artifactId: number): Promise<BackupSource> {
    const backup = await backupSource(artifactId, input.from_migration);
    if (backup.erpVersion !== input.erp_version) {
      throw new InstanceInputError('erp_version', `the database in ${backup.artifact.name} (run ${backup.source.run} of ${backup.migration.slug}) is on ${backup.erpVersion}: the instance must run ${backup.erpVersion}`);
    }
    return backup;
  }

  return {
    async create(input: InstanceCreateInput, metadata: EventMetadata) {
      const gitRepoGiven = input.git_repo?.trim() || null;
      if (gitRepoGiven) {
        const problem = projects.repositoryProblem(gitRepoGiven);
        if (problem) throw new InstanceInputError('git_repo', problem);
      }
      checkOneSource(input);
      const backup = input.from_backup === undefined ? undefined : await fromBackup(input, input.from_backup);
      const source = backup?.source ?? (await sourceOf(input));
      // A refused slug (reservedNames.ts) is refused before a new project is made for it.
      const project = await resolveProject(input.project, metadata, (projectSlug) => void instanceSlugCandidates(projectSlug, input.name).next());
      const stage = input.stage ?? 'development';
      const demoRefused = demoDataRefusal({ stage, demoData: input.demo_data });
      if (demoRefused) throw new InstanceInputError('demo_data', demoRefused);
      if (stage === 'production') {
        const production = (await allInstances(readModel, { project: project.slug, stage: 'production' })).filter((row) => row.status !== 'destroyed');
        if (production.length > 0) throw new DomainError(`project ${project.slug} already has a production instance (${production[0]!.slug}); destroy it first`, 'conflict');
      }
      const modules = [...new Set(input.modules ?? [])];
      for (const slug of instanceSlugCandidates(project.slug, input.name)) {
        const settings: InstanceSettings = {
          slug,
          name: input.name.trim().replace(/\s+/g, ' '),
          project: project.slug,
          stage,
          erpVersion: input.erp_version,
          edition: input.edition ?? backup?.edition ?? 'community',
          modules,
          gitRepo: gitRepoGiven ?? project.gitRepo,
          branch: input.branch ?? 'main',
          source,
          ...(input.demo_data ? { demoData: true } : {}),
        };
        try {
          const result = await run(slug, { type: 'RequestInstance', settings, jobId: randomUUID() }, metadata);
          return { slug, lastGlobalPosition: result.lastGlobalPosition };
        } catch (error) {
          if (!(error instanceof InstanceSlugTakenError)) throw error;
        }
      }
      throw new DomainError(`too many instances named like ${input.name}`);
    },

    action: (slug: string, action: InstanceAction, metadata: EventMetadata) => run(slug, { type: 'RequestAction', action, jobId: randomUUID(), reason: 'user' }, metadata),

    /** Records a web shell opened by `user` (e-mail); refused (409) when the instance has nothing to open one in. */
    openShell: (slug: string, sessionId: string, user: string, runtime: ShellRuntime, metadata: EventMetadata) => run(slug, { type: 'OpenShell', sessionId, user, runtime }, metadata),
    closeShell: (slug: string, sessionId: string, durationMs: number, reason: ShellCloseReason, metadata: EventMetadata) => run(slug, { type: 'CloseShell', sessionId, durationMs, reason }, metadata),

    /** Destroys every live instance of a project (the project is being deleted); returns their slugs. */
    async destroyProjectInstances(projectSlug: string, metadata: EventMetadata) {
      const destroyed: string[] = [];
      let lastGlobalPosition: number | undefined;
      for (const row of await allInstances(readModel, { project: projectSlug })) {
        if (row.status === 'destroyed') continue;
        const result = await run(row.slug, { type: 'RequestAction', action: 'destroy', jobId: randomUUID(), reason: 'user' }, metadata);
        lastGlobalPosition = result.lastGlobalPosition ?? lastGlobalPosition;
        destroyed.push(row.slug);
      }
      return { destroyed, lastGlobalPosition };
    },

    /** Purges every destroyed instance's record; returns their slugs. */
    async purgeDestroyed(metadata: EventMetadata) {
      const destroyed = await allInstances(readModel, { status: 'destroyed' });
      const purged: string[] = [];
      let lastGlobalPosition: number | undefined;
      for (const { slug } of destroyed) {
        const result = await run(slug, { type: 'PurgeInstance' }, metadata);
        lastGlobalPosition = result.lastGlobalPosition ?? lastGlobalPosition;
        purged.push(slug);
      }
      return { purged, lastGlobalPosition };
    },

    /**
     * Rebuilds the project's instances on each pushed branch (to its `head`, when the host said
     * it), branch after branch; the project's instances are read once for the whole push. Destroyed
     * ones are left alone; one busy with a job gets one rebuild when the job ends (deferred); one
     * that cannot rebuild is reported as skipped with the reason.
     */
    async rebuildForPush(projectSlug: string, pushes: ReadonlyArray<{ branch: string; head?: string }>, metadata: EventMetadata) {
      const rebuilt: string[] = [];
      const deferred: string[] = [];
      const skipped: Array<{ slug: string; reason: string }> = [];
      let lastGlobalPosition: number | undefined;
      const instances = await allInstances(readModel, { project: projectSlug });
      const onBranch = pushes.flatMap(({ branch, head }) => instances.filter((row) => row.branch === branch).map((row) => ({ row, head })));
      for (const { row, head } of onBranch) {
        if (row.status === 'destroyed') continue;
        try {
          const command = { type: 'RequestAction' as const, action: 'rebuild' as const, jobId: randomUUID(), reason: 'push' as const, ...(head ? { headCommit: head } : {}) };
          const result = await run(row.slug, command, metadata);
          lastGlobalPosition = result.lastGlobalPosition ?? lastGlobalPosition;
          (result.events.some((event) => event.type === 'InstanceRebuildDeferred') ? deferred : rebuilt).push(row.slug);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          skipped.push({ slug: row.slug, reason: error.message });
        }
      }
      return { rebuilt, deferred, skipped, lastGlobalPosition };
    },
  };
}

export type InstanceService = ReturnType<typeof instanceService>;
