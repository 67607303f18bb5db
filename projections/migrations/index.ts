import type { Kysely } from 'kysely';
import { migrateSchema } from '#shared/migrations.ts';
import * as checkpoints from './20261122_0001_checkpoints.ts';
import * as streamActivity from './20261122_0002_stream_activity.ts';
import * as users from './20261122_0003_users.ts';
import * as projects from './20261122_0004_projects.ts';
import * as padronLoads from './20261122_0005_padron_loads.ts';
import * as instances from './20261122_0006_instances.ts';
import * as instanceDetailRuntimeFacts from './20261123_0007_instance_detail_runtime_facts.ts';
import * as projectWebhookNonce from './20261124_0008_project_webhook_nonce.ts';
import * as erpMigrations from './20261125_0009_erp_migrations.ts';
import * as migrationNoticeOutbox from './20261126_0010_migration_notice_outbox.ts';
import * as migrationRunReports from './20261126_0011_migration_run_reports.ts';
import * as recipes from './20261126_0010_recipes.ts';
import * as sshKeys from './20261127_0012_ssh_keys.ts';
import * as instanceDetailAddonsPath from './20261128_0013_instance_detail_addons_path.ts';
import * as instanceDetailErpServer from './20261128_0014_instance_detail_erp_server.ts';
import * as instanceDetailNeutralization from './20261128_0015_instance_detail_neutralization.ts';
import * as migrationDetailMigratedRecipe from './20261129_0016_migration_detail_migrated_recipe.ts';
import * as migrationDetailCode from './20261129_0017_migration_detail_code.ts';

/** Read-model migrations, oldest first. Names are timestamps; a migration never changes once merged. */
export const readModelMigrations = {
  '20261122_0001_checkpoints': checkpoints,
  '20261122_0002_stream_activity': streamActivity,
  '20261122_0003_users': users,
  '20261122_0004_projects': projects,
  '20261122_0005_padron_loads': padronLoads,
  '20261122_0006_instances': instances,
  '20261123_0007_instance_detail_runtime_facts': instanceDetailRuntimeFacts,
  '20261124_0008_project_webhook_nonce': projectWebhookNonce,
  '20261125_0009_erp_migrations': erpMigrations,
  '20261126_0010_migration_notice_outbox': migrationNoticeOutbox,
  '20261126_0011_migration_run_reports': migrationRunReports,
  '20261126_0010_recipes': recipes,
  '20261127_0012_ssh_keys': sshKeys,
  '20261128_0013_instance_detail_addons_path': instanceDetailAddonsPath,
  '20261128_0014_instance_detail_erp_server': instanceDetailErpServer,
  '20261128_0015_instance_detail_neutralization': instanceDetailNeutralization,
  '20261129_0016_migration_detail_migrated_recipe': migrationDetailMigratedRecipe,
  '20261129_0017_migration_detail_code': migrationDetailCode,
};

export async function migrateReadModel(db: Kysely<unknown>): Promise<void> {
  await migrateSchema(db, 'read_model', readModelMigrations);
}
