import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instancePlan, jobSteps, type InstanceEvent, type InstanceSettings } from '#services/instances/domain/instance.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';

const settings: InstanceSettings = {
  slug: 'acme-dev',
  name: 'dev',
  project: 'acme',
  stage: 'development',
  erpVersion: '17.0',
  edition: 'community',
  modules: [],
  gitRepo: null,
  branch: 'main',
  source: { kind: 'empty' },
};
const SESSION = '6f1c2b7e-3d4a-4f5b-9c8d-7e6f5a4b3c2d';
const requested: InstanceEvent = { type: 'InstanceRequested', data: { ...settings, jobId: 'j1', plan: instancePlan('provision', false) } };
const running: InstanceEvent[] = [
  requested,
  ...jobSteps('provision', false).flatMap((step): InstanceEvent[] => [
    { type: 'InstanceStepStarted', data: { slug: 'acme-dev', jobId: 'j1', step, attempt: 1, attemptId: `a-${step}`, executor: 'e1' } },
    { type: 'InstanceStepCompleted', data: { slug: 'acme-dev', jobId: 'j1', step, attemptId: `a-${step}`, durationMs: 5, facts: {} } },
  ]),
  { type: 'InstanceJobSucceeded', data: { slug: 'acme-dev', jobId: 'j1', kind: 'provision', status: 'running' } },
];
const opened: InstanceEvent = { type: 'InstanceShellOpened', data: { slug: 'acme-dev', sessionId: SESSION, user: 'dev@example.com', runtime: 'process' } };
const closed: InstanceEvent = { type: 'InstanceShellClosed', data: { slug: 'acme-dev', sessionId: SESSION, durationMs: 1500, reason: 'idle' } };
const open = { type: 'OpenShell' as const, sessionId: SESSION, user: 'dev@example.com', runtime: 'process' as const };
const close = { type: 'CloseShell' as const, sessionId: SESSION, durationMs: 1499.6, reason: 'idle' as const };

describe('instance decider: web shell sessions', () => {
  const spec = deciderSpec(instanceDecider);

  it('records a shell opened on a provisioned instance, once per session', () => {
    spec.given(running).when(open).then([opened]);
    spec.given([...running, opened]).when(open).then([]);
  });

  it('records its close once, with the duration in whole milliseconds; a session never opened records nothing', () => {
    spec.given([...running, opened]).when(close).then([closed]);
    spec.given([...running, opened, closed]).when(close).then([]);
    spec.given(running).when(close).then([]);
  });

  it('refuses a shell before the first provisioning has finished, and on a destroyed instance', () => {
    spec.given([requested]).when(open).thenThrows(DomainError, /still being provisioned/);
    const destroyed: InstanceEvent[] = [
      ...running,
      { type: 'InstanceActionRequested', data: { slug: 'acme-dev', action: 'destroy', jobId: 'j2', reason: 'user', plan: instancePlan('destroy', true) } },
      { type: 'InstanceJobSucceeded', data: { slug: 'acme-dev', jobId: 'j2', kind: 'destroy', status: 'destroyed' } },
    ];
    spec.given(destroyed).when(open).thenThrows(DomainError, /is destroyed/);
    expect(() => instanceDecider.decide(open, instanceDecider.initialState())).to.throw(DomainError).with.property('kind', 'not_found');
  });

  for (const event of [opened, closed, { type: 'InstanceShellOpened', data: { slug: 'acme-dev', sessionId: SESSION, user: 'dev@example.com', runtime: 'docker' } } as InstanceEvent]) {
    it(`${event.type} matches schemas/events/${event.type}.v1.json`, () => {
      const validate = schemaValidator(`events/${event.type}.v1.json`);
      expect(validate(event.data), describeErrors(validate)).to.equal(true);
    });
  }
});
