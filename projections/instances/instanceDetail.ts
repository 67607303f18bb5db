import type { Selectable, Updateable } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { statusOnStepStarted, type InstanceEvent } from '#services/instances/domain/instance.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import { INSTANCE_EVENT_TYPES, instanceChange } from './instanceChanges.ts';
import type { InstanceDetailTable } from './instanceDetail.table.ts';

export type InstanceDetailRow = Selectable<InstanceDetailTable>;

/** One instance's page and its InstanceOut: settings, status, current job, where it runs. */
export const instanceDetailProjection: Projection<ReadModelDatabase> = {
  name: 'instance_detail',
  eventTypes: INSTANCE_EVENT_TYPES,
  tables: ['instance_detail'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as InstanceEvent;
      const slug = event.data.slug;
      const at = new Date(recorded.metadata.at);
      // A visit or a shell opened is activity for the idle sweep, and nothing else on the instance changes.
      if (event.type === 'InstanceVisited' || event.type === 'InstanceShellOpened') {
        await trx.updateTable('instance_detail').set({ last_action_at: at }).where('slug', '=', slug).execute();
        continue;
      }
      const change = instanceChange(recorded);
      if (!change) continue;
      if ('purge' in change) {
        await trx.deleteFrom('instance_detail').where('slug', '=', slug).execute();
        continue;
      }
      if ('insert' in change && event.type === 'InstanceRequested') {
        const row = {
          ...change.insert,
          modules: JSON.stringify(change.insert.modules),
          source: JSON.stringify(event.data.source),
          created_by: recorded.metadata.actor,
          runtime: null,
          standin: false,
          commit: null,
          branch_head: null,
          addons_path: null,
          port: null,
          demo_data: event.data.demoData === true,
          gevent_port: null,
          gevent_url: null,
          neutralization: null,
          provisioned: false,
          rebuild_pending: false,
          job_id: event.data.jobId,
          job_kind: 'provision',
          job_active: true,
          last_action_at: at,
        };
        await trx.insertInto('instance_detail').values(row).onConflict((oc) => oc.column('slug').doUpdateSet(row)).execute();
        continue;
      }
      if (!('patch' in change)) continue;
      const patch: Updateable<InstanceDetailTable> = { ...change.patch };
      if (event.type === 'InstanceActionRequested') {
        Object.assign(patch, { job_id: event.data.jobId, job_kind: event.data.action, job_active: true, rebuild_pending: false });
        if (event.data.headCommit) patch.branch_head = event.data.headCommit;
        if (event.data.reason !== 'idle' && event.data.reason !== 'boot') patch.last_action_at = at;
      }
      if (event.type === 'InstanceRebuildDeferred') {
        patch.rebuild_pending = true;
        if (event.data.headCommit) patch.branch_head = event.data.headCommit;
      }
      if (event.type === 'InstanceStepCompleted') {
        const { facts } = event.data;
        if (facts.runtime) patch.runtime = facts.runtime;
        if (facts.standin !== undefined) patch.standin = facts.standin;
        if (facts.commit) patch.commit = facts.commit;
        if (facts.branchHead) patch.branch_head = facts.branchHead;
        if (facts.port) patch.port = facts.port;
        if (facts.addonsPath) patch.addons_path = JSON.stringify(facts.addonsPath);
        if (facts.geventPort) patch.gevent_port = facts.geventPort;
        // Each start says anew whether its ERP has a gevent process (workers may have been turned off).
        if (event.data.step === 'start') patch.gevent_url = facts.geventUrl ?? null;
        if (event.data.step === 'database') Object.assign(patch, { provisioned: true, neutralization: facts.neutralization ?? null });
      }
      const legacyFailure = event.type === 'InstanceStepFailed' && event.data.retryable === undefined;
      if (legacyFailure || event.type === 'InstanceJobSucceeded' || event.type === 'InstanceJobFailed' || event.type === 'InstanceJobCancelled') patch.job_active = false;
      if (event.type === 'InstanceJobSucceeded' && event.data.status === 'destroyed') patch.provisioned = false;
      // Wherever the instance's url is cleared (instanceChanges.ts), so is its gevent process's.
      if (patch.url === null) patch.gevent_url = null;
      await trx.updateTable('instance_detail').set(patch).where('slug', '=', slug).execute();
      if (event.type === 'InstanceStepStarted') {
        const row = await trx.selectFrom('instance_detail').select(['status', 'job_kind']).where('slug', '=', slug).executeTakeFirst();
        const status = row && statusOnStepStarted(row.status, row.job_kind);
        if (row && status !== row.status) await trx.updateTable('instance_detail').set({ status }).where('slug', '=', slug).execute();
      }
    }
  },
};

export function getInstance(db: ReadModel, slug: string): Promise<InstanceDetailRow | undefined> {
  return db.selectFrom('instance_detail').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The instance runs an older commit than its branch head: a rebuild would bring it up to date. Unknown either way is not behind. */
export function isBehind(row: Pick<InstanceDetailRow, 'commit' | 'branch_head'>): boolean {
  return row.commit !== null && row.branch_head !== null && row.commit !== row.branch_head;
}

/** Running development instances untouched since `before`: the idle sweep's candidates. */
export function idleDevelopmentInstances(db: ReadModel, before: Date): Promise<Array<{ slug: string }>> {
  return db
    .selectFrom('instance_detail')
    .select('slug')
    .where('stage', '=', 'development')
    .where('status', '=', 'running')
    .where('job_active', '=', false)
    .where('last_action_at', '<', before)
    .execute();
}

/** Destroyed instances, for purging. */
export function destroyedInstances(db: ReadModel): Promise<Array<{ slug: string }>> {
  return db.selectFrom('instance_detail').select('slug').where('status', '=', 'destroyed').execute();
}

/** ERP ports (HTTP and gevent) kept by instances that are not destroyed: a new instance must not be given one of them. */
export async function keptPorts(db: ReadModel): Promise<Set<number>> {
  const rows = await db
    .selectFrom('instance_detail')
    .select(['port', 'gevent_port'])
    .where((eb) => eb.or([eb('port', 'is not', null), eb('gevent_port', 'is not', null)]))
    .where('status', '<>', 'destroyed')
    .execute();
  return new Set(rows.flatMap((row) => [row.port, row.gevent_port].filter((port): port is number => port !== null)));
}

/** Instances a restarted all-in-one platform must look at: a job left unfinished, or a server that was running. */
export function instancesToRecover(db: ReadModel): Promise<Array<Pick<InstanceDetailRow, 'slug' | 'status' | 'job_id' | 'job_active' | 'runtime'>>> {
  return db
    .selectFrom('instance_detail')
    .select(['slug', 'status', 'job_id', 'job_active', 'runtime'])
    .where('status', '<>', 'destroyed')
    .where((eb) => eb.or([eb('job_active', '=', true), eb('status', '=', 'running')]))
    .orderBy('slug')
    .execute();
}

/** Running instances and their ERP's port on 127.0.0.1: what monitoring probes at each scrape. */
export async function runningErpPorts(db: ReadModel): Promise<Array<{ slug: string; port: number }>> {
  const rows = await db.selectFrom('instance_detail').select(['slug', 'port']).where('status', '=', 'running').where('port', 'is not', null).orderBy('slug').execute();
  return rows.map((row) => ({ slug: row.slug, port: row.port! }));
}
