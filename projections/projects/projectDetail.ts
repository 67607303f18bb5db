import type { Selectable } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import type { ProjectDetailTable } from './projectDetail.table.ts';

export type ProjectDetailRow = Selectable<ProjectDetailTable>;

type ProjectEventData = { slug: string; name?: string; gitRepo?: string; webhookNonce?: string };

/** One project's page: what it is, who created and last changed it. */
export const projectDetailProjection: Projection<ReadModelDatabase> = {
  name: 'project_detail',
  eventTypes: ['ProjectCreated', 'ProjectRepositorySet', 'ProjectWebhookRotated', 'ProjectDeleted'],
  tables: ['project_detail'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const event of events) {
      const data = event.data as ProjectEventData;
      const at = new Date(event.metadata.at);
      const actor = event.metadata.actor;
      if (event.type === 'ProjectCreated') {
        const row = { slug: data.slug, name: data.name!, git_repo: null, webhook_nonce: data.webhookNonce ?? null, created_at: at, created_by: actor, updated_at: at, updated_by: actor };
        await trx
          .insertInto('project_detail')
          .values(row)
          .onConflict((oc) => oc.column('slug').doUpdateSet(row))
          .execute();
      } else if (event.type === 'ProjectRepositorySet') {
        await trx.updateTable('project_detail').set({ git_repo: data.gitRepo!, updated_at: at, updated_by: actor }).where('slug', '=', data.slug).execute();
      } else if (event.type === 'ProjectWebhookRotated') {
        await trx.updateTable('project_detail').set({ webhook_nonce: data.webhookNonce!, updated_at: at, updated_by: actor }).where('slug', '=', data.slug).execute();
      } else if (event.type === 'ProjectDeleted') {
        await trx.deleteFrom('project_detail').where('slug', '=', data.slug).execute();
      }
    }
  },
};

export function getProject(db: ReadModel, slug: string): Promise<ProjectDetailRow | undefined> {
  return db.selectFrom('project_detail').selectAll().where('slug', '=', slug).executeTakeFirst();
}
