import { sql, type Selectable } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import type { ProjectListTable } from './projectList.table.ts';

export type ProjectListRow = Selectable<ProjectListTable>;

type ProjectEventData = { slug: string; name?: string; gitRepo?: string; webhookNonce?: string };

/** The project list: name search and pages. */
export const projectListProjection: Projection<ReadModelDatabase> = {
  name: 'project_list',
  eventTypes: ['ProjectCreated', 'ProjectRepositorySet', 'ProjectWebhookRotated', 'ProjectDeleted'],
  tables: ['project_list'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const event of events) {
      const data = event.data as ProjectEventData;
      if (event.type === 'ProjectCreated') {
        await trx
          .insertInto('project_list')
          .values({ slug: data.slug, name: data.name!, git_repo: null, webhook_nonce: data.webhookNonce ?? null, created_at: new Date(event.metadata.at) })
          .onConflict((oc) => oc.column('slug').doUpdateSet({ name: data.name!, git_repo: null, webhook_nonce: data.webhookNonce ?? null, created_at: new Date(event.metadata.at) }))
          .execute();
      } else if (event.type === 'ProjectRepositorySet') {
        await trx.updateTable('project_list').set({ git_repo: data.gitRepo! }).where('slug', '=', data.slug).execute();
      } else if (event.type === 'ProjectWebhookRotated') {
        await trx.updateTable('project_list').set({ webhook_nonce: data.webhookNonce! }).where('slug', '=', data.slug).execute();
      } else if (event.type === 'ProjectDeleted') {
        await trx.deleteFrom('project_list').where('slug', '=', data.slug).execute();
      }
    }
  },
};

export interface ProjectPage {
  rows: ProjectListRow[];
  total: number;
  page: number;
  pageCount: number;
}

/** One page of projects whose name contains `q` (case-insensitive), by name. */
export async function listProjects(db: ReadModel, { q = '', page = 1, pageSize = 20 }: { q?: string; page?: number; pageSize?: number }): Promise<ProjectPage> {
  const pattern = `%${q.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const matching = db.selectFrom('project_list').where(sql<boolean>`lower(name) like ${pattern}`);
  const [{ total } = { total: 0 }] = await matching.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const pageCount = Math.max(1, Math.ceil(Number(total) / pageSize));
  const current = Math.min(Math.max(1, page), pageCount);
  const rows = await matching.selectAll().orderBy(sql`lower(name)`).orderBy('slug').limit(pageSize).offset((current - 1) * pageSize).execute();
  return { rows, total: Number(total), page: current, pageCount };
}
