import type { Kysely } from 'kysely';
import { migrateSchema } from '#shared/migrations.ts';
import * as padron from './20261122_0001_padron.ts';
import * as padronReimport from './20261123_0001_padron_reimport.ts';

/** Migrations of schema `padron`, oldest first; a migration never changes once merged. */
export const padronMigrations = {
  '20261122_0001_padron': padron,
  '20261123_0001_padron_reimport': padronReimport,
};

/** Brings schema `padron` up to date. The importer calls it, and the lookup service at start unless FORJA_PADRON_READ_ONLY. */
export async function migratePadron(db: Kysely<unknown>): Promise<void> {
  await migrateSchema(db, 'padron', padronMigrations);
}
