import type { Kysely } from 'kysely';
import { migrateSchema } from '#shared/migrations.ts';
import * as padron from './20261122_0001_padron.ts';

/** Migrations of schema `padron`, oldest first; a migration never changes once merged. */
export const padronMigrations = {
  '20261122_0001_padron': padron,
};

/** Brings schema `padron` up to date. Only the importer calls it: the lookup service may run with a read-only role. */
export async function migratePadron(db: Kysely<unknown>): Promise<void> {
  await migrateSchema(db, 'padron', padronMigrations);
}
