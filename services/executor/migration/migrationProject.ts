import { randomBytes } from 'node:crypto';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { projectDecider, SlugTakenError } from '#services/projects/domain/project.decider.ts';
import { projectStream } from '#services/projects/domain/project.ts';
import { MIGRATION_PROJECT } from './steps/instance.ts';

/**
 * Creates the project the working instances of migrations belong to (`migrations`, named
 * "Migrations") unless it is live: asked before each working instance, so it exists from the
 * first one on, comes back if someone deleted it, and an install that never migrates has none.
 */
export async function ensureMigrationProject(store: EventStore, metadata: EventMetadata): Promise<void> {
  const command = { type: 'CreateProject' as const, slug: MIGRATION_PROJECT, name: 'Migrations', webhookNonce: randomBytes(16).toString('base64url') };
  try {
    await handleCommand(store, projectDecider, projectStream(MIGRATION_PROJECT), command, { metadata });
  } catch (error) {
    if (!(error instanceof SlugTakenError)) throw error; // live already: whoever holds the slug, the instances join it
  }
}
