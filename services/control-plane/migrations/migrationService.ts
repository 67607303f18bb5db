import { randomUUID } from 'node:crypto';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { pullUrlProblem, type PullAllowList } from '#shared/net/pullUrl.ts';
import { migrationDecider, MigrationSlugTakenError, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type Engine, type Flavor, type LiveMigration, type MigrationChanges, type MigrationInput, type MigrationSettings, type Purpose } from '#services/migrations/domain/migration.ts';
import { editableFields } from '#services/migrations/domain/migrationActions.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { hopCodeProblem, type HopCodes } from '#services/migrations/domain/hopCode.ts';
import { projectDecider } from '#services/projects/domain/project.decider.ts';
import { projectStream } from '#services/projects/domain/project.ts';
import type { MigrationRecipes } from './migrationRecipes.ts';
import { migrationDatabasesOf, migrationSlugCandidates } from './migrationSlug.ts';

/** The create input after schema validation (schemas/api/MigrationCreate.v1.json). */
export interface MigrationCreateInput {
  name: string;
  origin: string;
  destination: string;
  flavor?: Flavor;
  engine?: Engine;
  purpose?: Purpose;
  contract?: string | null;
  notify_to?: string[];
  pull_url?: string;
  /** Web only: files the form already stored (the API refuses it before this). */
  upload?: MigrationUploadInput;
  /** The project whose repository holds the customer's code (hopCode.ts). */
  project?: string | null;
  /** Per destination version, the branch (and commit) of that code. */
  code?: Record<string, { branch: string; commit?: string | null }>;
}

/** An upload the web form streamed to blob storage (schemas/api/MigrationCreate.v1.json `upload`). */
export interface MigrationUploadInput {
  upload_id: string;
  dump_name: string;
  filestore_name: string | null;
  bytes: number;
  sha256: string;
}

/** The edit input after schema validation (schemas/api/MigrationEdit.v1.json). */
export type MigrationEditInput = Partial<Omit<MigrationCreateInput, 'name' | 'pull_url' | 'upload'>>;

/** A refused field of the input: a 422 naming that field. */
export class MigrationInputError extends DomainError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, 'invalid');
  }
}

const majorOf = (version: string) => Number.parseInt(version, 10);

/** Route, engine and contract rules shared by creation and edits of a draft. */
function checkRoute(route: { origin: string; destination: string; flavor: Flavor; engine: Engine; contract: string | null }): void {
  if (majorOf(route.destination) <= majorOf(route.origin)) throw new MigrationInputError('destination', `the destination (${route.destination}) must be newer than the origin (${route.origin})`);
  if (route.flavor === 'enterprise' && route.engine !== 'upgrade-service') throw new MigrationInputError('engine', 'enterprise databases migrate only through the upgrade-service engine');
  if (route.engine === 'upgrade-service' && !route.contract?.trim()) throw new MigrationInputError('contract', 'the upgrade-service engine needs the subscription contract');
}

const hopCodesOf = (code: MigrationCreateInput['code']): HopCodes => Object.fromEntries(Object.entries(code ?? {}).map(([version, { branch, commit }]) => [version, { branch, commit: commit ?? null }]));

/** The project and code rules (hopCode.ts), and the project must be live with a repository. */
async function checkCode(store: EventStore, route: { origin: string; destination: string }, project: string | null, code: HopCodes): Promise<void> {
  const problem = hopCodeProblem(route, project, code);
  if (problem) throw new MigrationInputError(problem.field, problem.message);
  if (project === null) return;
  const { state } = await aggregateStream(store, projectDecider, projectStream(project));
  if (state.status !== 'live') throw new MigrationInputError('project', `no project ${project}`);
  if (state.gitRepo === null) throw new MigrationInputError('project', `project ${project} has no repository to take the code from`);
}

/** Where the database comes from: exactly one of `pull_url` (checked against the allow-list) and an upload. */
function migrationInputOf(input: MigrationCreateInput, allow: PullAllowList): MigrationInput {
  if (input.upload && input.pull_url) throw new MigrationInputError('upload', 'give either pull_url or an uploaded dump, not both');
  if (input.upload) {
    const { upload_id, dump_name, filestore_name, bytes, sha256 } = input.upload;
    return { mode: 'upload', uploadId: upload_id, dumpName: dump_name, filestoreName: filestore_name, bytes, sha256 };
  }
  if (!input.pull_url) throw new MigrationInputError('pull_url', 'the API takes the database from pull_url; upload a dump through the web form instead');
  const problem = pullUrlProblem(input.pull_url, allow);
  if (problem) throw new MigrationInputError('pull_url', problem);
  return { mode: 'pull', pullUrl: input.pull_url };
}

/** Migration commands: creation (slug, recipe snapshot, working database), edits and the run actions. */
export function migrationService(store: EventStore, recipes: MigrationRecipes, pull: { allow: PullAllowList }) {
  const send = (slug: string, command: MigrationCommand, metadata: EventMetadata) => handleCommand(store, migrationDecider, migrationStream(slug), command, { metadata });
  const load = async (slug: string): Promise<LiveMigration> => {
    const { state } = await aggregateStream(store, migrationDecider, migrationStream(slug));
    if (state.status === 'none' || state.deleted) throw new DomainError('no such migration', 'not_found');
    return state;
  };

  return {
    async create(input: MigrationCreateInput, metadata: EventMetadata) {
      const flavor = input.flavor ?? 'community';
      const engine = input.engine ?? (flavor === 'enterprise' ? 'upgrade-service' : 'openupgrade');
      const contract = input.contract?.trim() || null;
      checkRoute({ origin: input.origin, destination: input.destination, flavor, engine, contract });
      const source = migrationInputOf(input, pull.allow);
      const project = input.project ?? null;
      const code = hopCodesOf(input.code);
      await checkCode(store, input, project, code);
      const recipe = await recipes.snapshotFor({ origin: input.origin, destination: input.destination }, flavor);
      const name = input.name.trim().replace(/\s+/g, ' ');
      for (const slug of migrationSlugCandidates(name)) {
        const settings: MigrationSettings = {
          slug,
          name,
          origin: input.origin,
          destination: input.destination,
          flavor,
          engine,
          purpose: input.purpose ?? 'test',
          contract,
          notifyTo: [...new Set(input.notify_to ?? [])],
          input: source,
          recipe,
          ...migrationDatabasesOf(slug),
          ...(project !== null ? { project } : {}),
          ...(Object.keys(code).length > 0 ? { code } : {}),
        };
        // The plan must be makeable now, not at the first run: a recipe that refuses the migration is a 422 here.
        recipes.planFor(settings);
        try {
          const result = await send(slug, { type: 'CreateMigration', settings }, metadata);
          return { slug, lastGlobalPosition: result.lastGlobalPosition };
        } catch (error) {
          if (!(error instanceof MigrationSlugTakenError)) throw error;
        }
      }
      throw new DomainError(`too many migrations named like ${name}`);
    },

    /** Applies what the state lets change; says which sent fields were ignored. */
    async edit(slug: string, input: MigrationEditInput, metadata: EventMetadata) {
      const migration = await load(slug);
      const sent: MigrationChanges = {
        ...(input.origin !== undefined ? { origin: input.origin } : {}),
        ...(input.destination !== undefined ? { destination: input.destination } : {}),
        ...(input.flavor !== undefined ? { flavor: input.flavor } : {}),
        ...(input.engine !== undefined ? { engine: input.engine } : {}),
        ...(input.purpose !== undefined ? { purpose: input.purpose } : {}),
        ...(input.contract !== undefined ? { contract: input.contract?.trim() || null } : {}),
        ...(input.notify_to !== undefined ? { notifyTo: [...new Set(input.notify_to)] } : {}),
        ...(input.project !== undefined ? { project: input.project } : {}),
        ...(input.code !== undefined ? { code: hopCodesOf(input.code) } : {}),
      };
      const allowed = editableFields(migration);
      const ignored = Object.keys(sent).filter((field) => !allowed.includes(field as keyof MigrationChanges));
      const changes = Object.fromEntries(Object.entries(sent).filter(([field]) => allowed.includes(field as keyof MigrationChanges))) as MigrationChanges;
      const after = { ...migration, ...changes };
      checkRoute(after);
      if (changes.project !== undefined || changes.code !== undefined || changes.origin !== undefined || changes.destination !== undefined) {
        await checkCode(store, after, after.project ?? null, after.code ?? {});
      }
      const routeChanged = after.origin !== migration.origin || after.destination !== migration.destination || after.flavor !== migration.flavor;
      if (routeChanged) changes.recipe = await recipes.snapshotFor({ origin: after.origin, destination: after.destination }, after.flavor);
      if (routeChanged || after.engine !== migration.engine || after.purpose !== migration.purpose) recipes.planFor({ ...after, recipe: changes.recipe ?? migration.recipe });
      const result = await send(slug, { type: 'EditMigration', changes }, metadata);
      return { lastGlobalPosition: result.lastGlobalPosition, ignored: ignored.map(apiField) };
    },

    /** A new run: from scratch with the snapshot's plan, or resuming the failed run. */
    async run(slug: string, metadata: EventMetadata) {
      const migration = await load(slug);
      const result = await send(slug, { type: 'RequestRun', jobId: randomUUID(), plan: recipes.planFor(migration) }, metadata);
      return runResult(result);
    },
    async runAnyway(slug: string, reason: string, metadata: EventMetadata) {
      return runResult(await send(slug, { type: 'RunAnyway', jobId: randomUUID(), reason }, metadata));
    },
    pause: (slug: string, metadata: EventMetadata) => send(slug, { type: 'PauseRun' }, metadata),
    resume: (slug: string, metadata: EventMetadata) => send(slug, { type: 'ResumeRun' }, metadata),
    stop: (slug: string, metadata: EventMetadata) => send(slug, { type: 'StopMigration' }, metadata),
    delete: (slug: string, confirmName: string, metadata: EventMetadata) => send(slug, { type: 'DeleteMigration', confirmName }, metadata),
    resolveGate: (slug: string, number: number, decision: 'approved' | 'rejected', note: string | undefined, metadata: EventMetadata) =>
      send(slug, { type: 'ResolveRunGate', number, decision, by: metadata.actor, ...(note?.trim() ? { note: note.trim() } : {}) }, metadata),
  };
}

export type MigrationService = ReturnType<typeof migrationService>;

function runResult(result: Awaited<ReturnType<typeof handleCommand>>) {
  const requested = result.events.find((event) => event.type === 'MigrationRunRequested') as { data: { number: number } } | undefined;
  return { number: requested?.data.number ?? 0, lastGlobalPosition: result.lastGlobalPosition };
}

/** The API's name of a settings field. */
const apiField = (field: string) => (field === 'notifyTo' ? 'notify_to' : field);
