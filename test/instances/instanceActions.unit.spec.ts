import { expect } from 'chai';
import { allowedActions, refuseAction, type ActionView } from '#services/instances/domain/instanceActions.ts';

const view = (over: Partial<ActionView>): ActionView => ({ slug: 'acme-dev', status: 'running', stage: 'development', jobActive: false, jobKind: 'provision', provisioned: true, ...over });

describe('instance action rules', () => {
  it('offers each status exactly the actions the decider accepts', () => {
    expect(allowedActions(view({}))).to.deep.equal(['stop', 'restart', 'rebuild', 'destroy']);
    expect(allowedActions(view({ status: 'stopped' }))).to.deep.equal(['start', 'rebuild', 'destroy']);
    expect(allowedActions(view({ status: 'sleeping' }))).to.deep.equal(['start', 'rebuild', 'destroy']);
    expect(allowedActions(view({ status: 'failed' }))).to.deep.equal(['restart', 'rebuild', 'destroy']);
    expect(allowedActions(view({ status: 'destroyed' }))).to.deep.equal([]);
  });

  it('offers neither start nor restart for an instance that was never provisioned', () => {
    expect(allowedActions(view({ status: 'failed', provisioned: false }))).to.deep.equal(['rebuild', 'destroy']);
    expect(refuseAction('restart', view({ status: 'failed', provisioned: false }))).to.equal('acme-dev was never provisioned; rebuild it instead');
  });

  it('offers only destroy while a job runs', () => {
    expect(allowedActions(view({ status: 'queued', jobActive: true }))).to.deep.equal(['destroy']);
    expect(allowedActions(view({ status: 'running', jobActive: true, jobKind: 'restart' }))).to.deep.equal(['destroy']);
    expect(refuseAction('stop', view({ jobActive: true, jobKind: 'restart' }))).to.match(/busy with a restart job/);
  });
});
