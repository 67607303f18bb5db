import { sql, type Selectable } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import { INSTANCE_EVENT_TYPES, instanceChange } from './instanceChanges.ts';
import type { InstanceListTable } from './instanceList.table.ts';

export type InstanceListRow = Selectable<InstanceListTable>;

/** The instance list: filters by stage, status, version, project and branch; name search; pages. */
export const instanceListProjection: Projection<ReadModelDatabase> = {
  name: 'instance_list',
  eventTypes: INSTANCE_EVENT_TYPES,
  tables: ['instance_list'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const event of events) {
      const change = instanceChange(event);
      const slug = (event.data as { slug: string }).slug;
      if (!change) continue;
      if ('insert' in change) {
        const row = { ...change.insert, modules: JSON.stringify(change.insert.modules) };
        await trx.insertInto('instance_list').values(row).onConflict((oc) => oc.column('slug').doUpdateSet(row)).execute();
      } else if ('purge' in change) {
        await trx.deleteFrom('instance_list').where('slug', '=', slug).execute();
      } else {
        await trx.updateTable('instance_list').set(change.patch).where('slug', '=', slug).execute();
      }
      if (event.type === 'InstanceStepStarted') {
        // statusOnStepStarted without the job kind: a provision or rebuild is queued until its first step, so queued is enough.
        await trx.updateTable('instance_list').set({ status: 'provisioning' }).where('slug', '=', slug).where('status', '=', 'queued').execute();
      }
    }
  },
};

export interface InstanceFilters {
  q?: string;
  stage?: string;
  status?: string;
  version?: string;
  project?: string;
  branch?: string;
}

export interface InstancePage {
  rows: InstanceListRow[];
  total: number;
  page: number;
  pageCount: number;
}

function filtered(db: ReadModel, filters: InstanceFilters) {
  let query = db.selectFrom('instance_list');
  if (filters.q?.trim()) {
    const pattern = `%${filters.q.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) => eb.or([eb(sql`lower(name)`, 'like', pattern), eb('slug', 'like', pattern), eb(sql`lower(project)`, 'like', pattern)]));
  }
  if (filters.stage) query = query.where('stage', '=', filters.stage);
  if (filters.status) query = query.where('status', '=', filters.status as InstanceListRow['status']);
  if (filters.version) query = query.where('erp_version', '=', filters.version);
  if (filters.project) query = query.where('project', '=', filters.project);
  if (filters.branch) query = query.where('branch', '=', filters.branch);
  return query;
}

/** One page of instances matching the filters, newest first. */
export async function listInstances(db: ReadModel, filters: InstanceFilters & { page?: number; pageSize?: number }): Promise<InstancePage> {
  const pageSize = filters.pageSize ?? 20;
  const matching = filtered(db, filters);
  const [{ total } = { total: 0 }] = await matching.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const pageCount = Math.max(1, Math.ceil(Number(total) / pageSize));
  const page = Math.min(Math.max(1, filters.page ?? 1), pageCount);
  const rows = await matching.selectAll().orderBy('created_at', 'desc').orderBy('slug').limit(pageSize).offset((page - 1) * pageSize).execute();
  return { rows, total: Number(total), page, pageCount };
}

/** Every instance matching the filters (the API list, the push hook's branch match), newest first. */
export function allInstances(db: ReadModel, filters: InstanceFilters): Promise<InstanceListRow[]> {
  return filtered(db, filters).selectAll().orderBy('created_at', 'desc').orderBy('slug').execute();
}
