import { getInstance, instanceDetailProjection } from '#projections/instances/instanceDetail.ts';
import { instanceListProjection, listInstances } from '#projections/instances/instanceList.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { instanceStream, jobSteps, type InstanceEvent } from '#services/instances/domain/instance.ts';
import { instanceHistory, PROVISION_FACTS } from '#test/support/instanceHistory.ts';
import { event, projectionSpec, recordedEvents, type EventDraft } from '#test/support/projectionSpec.ts';

const SESSION = '6f1c2b7e-3d4a-4f5b-9c8d-7e6f5a4b3c2d';
const shell = (domainEvent: InstanceEvent): EventDraft => event<InstanceEvent>(domainEvent, { stream: instanceStream('acme-dev'), metadata: { actor: 'user-dev' } });
const opened = shell({ type: 'InstanceShellOpened', data: { slug: 'acme-dev', sessionId: SESSION, user: 'dev@example.com', runtime: 'process' } });
const closed = shell({ type: 'InstanceShellClosed', data: { slug: 'acme-dev', sessionId: SESSION, durationMs: 60_000, reason: 'user' } });

describe('instance read models and web shell sessions', () => {
  const acme = instanceHistory();
  const provisioned = [acme.requested('j1'), ...acme.ranJob('j1', jobSteps('provision', false), 'provision', 'running', { facts: PROVISION_FACTS })];
  const drafts = [...provisioned, opened, closed];
  const at = (draft: EventDraft) => new Date(recordedEvents(drafts)[drafts.indexOf(draft)]!.metadata.at);

  it('counts a shell opened as activity for the idle sweep (last_action_at), and changes nothing else', async () => {
    await projectionSpec(instanceDetailProjection)
      .given(provisioned)
      .when([opened, closed])
      .then(async (db: ReadModel) => {
        const row = (await getInstance(db, 'acme-dev'))!;
        return { last_action_at: row.last_action_at, updated_at: row.updated_at, status: row.status };
      }, { last_action_at: at(opened), updated_at: at(provisioned.at(-1)!), status: 'running' });
  });

  it('leaves the instance list as it was', async () => {
    await projectionSpec(instanceListProjection)
      .given(provisioned)
      .when([opened, closed])
      .then(async (db: ReadModel) => (await listInstances(db, { page: 1, pageSize: 10 })).rows.map((row) => [row.slug, row.status, row.updated_at]), [['acme-dev', 'running', at(provisioned.at(-1)!)]]);
  });
});
