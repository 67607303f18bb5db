import type { Kysely } from 'kysely';
import { migrateSchema } from '#shared/migrations.ts';
import * as padron from './20261122_0001_padron.ts';

/** Migrations of schema `padron`, oldest first; a migration never changes once merged. */
export const padronMigrations = {
  '20261122_0001_padron': padron,
};

/** Brings schema `padron` up to date. The importer calls it, and the lookup service at start unless FORJA_PADRON_READ_ONLY. */
export async function migratePadron(db: Kysely<unknown>): Promise<void> {
  await migrateSchema(db, 'padron', padronMigrations);
}
