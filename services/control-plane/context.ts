import type { Kysely } from 'kysely';
import type { ReadModel } from '#projections/readModel.ts';
import type { UserRow } from '#projections/users/users.ts';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Metrics } from '#shared/http/metrics.ts';
import type { Logger } from '#shared/log.ts';
import type { PlatformSecrets } from '#shared/platform/platformSecrets.ts';
import type { IdentityService } from './identity/identityService.ts';
import type { InstanceService } from './instances/instanceService.ts';
import type { MigrationService } from './migrations/migrationService.ts';
import type { RecipeBook } from './migrations/recipeBook.ts';
import type { MigrationResync } from './migrations/migrationResync.ts';
import type { ProjectKeys } from './projects/projectKeys.ts';
import type { ProjectService } from './projects/projectService.ts';
import type { Keyring } from './sshKeys/keyring.ts';

/** What the control-plane's routes work with. */
export interface ControlPlaneContext {
  /** Schema `read_model` (projections/readModel.ts). */
  readModel: ReadModel;
  /** The whole database, for /health. */
  db: Kysely<unknown>;
  store: EventStore;
  identity: IdentityService;
  projects: ProjectService;
  /** The shared SSH keyring (keys sealed in schema `secrets`, facts on `sshKey-<id>`). */
  keyring: Keyring;
  /** A project's SSH keys and host keys, and the verification of its repositories with them. */
  projectKeys: ProjectKeys;
  instances: InstanceService;
  migrations: MigrationService;
  /** The migration recipes' streams: read when a migration snapshots its route, saved by admins. */
  recipes: RecipeBook;
  /** Resync: a migration's recipe snapshot against the current recipe, adopt or keep. */
  resync: MigrationResync;
  /** Migration artifacts, streamed by the API (the executor stores them). */
  blobs: BlobStore;
  secrets: PlatformSecrets;
  metrics: Metrics;
  logger: Logger;
  /** Read-your-writes: resolves once these projections have passed `position` (bounded). */
  waitForProjections(position: number | undefined, projections: readonly string[]): Promise<void>;
}

/** The user a request acts as, set by authentication (Basic for the API, X-Forja-Actor for internal calls). */
export function actingUser(locals: Record<string, unknown>): UserRow {
  const user = locals['user'] as UserRow | undefined;
  if (!user) throw new Error('route reached without an authenticated user: check the authorization table');
  return user;
}
