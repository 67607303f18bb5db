import { expect } from 'chai';
import type { InstanceSettings } from '#services/instances/domain/instance.ts';
import type { MigrationStepContext, WorkingInstances } from '#services/executor/migration/migrationStepContext.ts';
import { instance } from '#services/executor/migration/steps/instance.ts';

/** The `instance` step over a port that answers as told, recording what it was asked. */
function contextWith(answer: 'requested' | 'taken', status = 'running') {
  const asked: InstanceSettings[] = [];
  const instances: WorkingInstances = {
    reserve: async () => 'migrun-acme-2',
    request: async (settings) => {
      asked.push(settings);
      return answer;
    },
    statusOf: async () => ({ status, url: 'http://127.0.0.1:9000', lastError: null }),
  };
  const context = {
    migration: { slug: 'acme', name: 'Acme', destination: '17.0', flavor: 'community', workingDatabase: 'forjamig_acme' },
    run: { number: 2 },
    paths: { filestore: '/data/migrations/acme/work/filestore' },
    instances,
    log: async () => undefined,
    signal: new AbortController().signal,
  } as unknown as MigrationStepContext;
  return { context, asked };
}

describe('migration step instance', () => {
  it('asks for the working instance under the slug the migration recorded, made from this run', async () => {
    const { context, asked } = contextWith('requested');
    expect(await instance(context)).to.deep.equal({ outcome: 'done', facts: { instance: 'migrun-acme-2', url: 'http://127.0.0.1:9000' } });
    expect(asked.map((settings) => [settings.slug, settings.project, settings.source])).to.deep.equal([
      ['migrun-acme-2', 'migrations', { kind: 'migration', migration: 'acme', run: 2, database: 'forjamig_acme', filestoreDir: '/data/migrations/acme/work/filestore' }],
    ]);
  });

  it('fails, without a retry and touching nothing, when an instance it did not make holds the slug', async () => {
    const { context } = contextWith('taken');
    expect(await instance(context)).to.deep.equal({
      outcome: 'fail',
      error: 'an instance migrun-acme-2 exists that run 2 of acme did not create: it is left as it is, and this run gets no working instance',
      retryable: false,
    });
  });
});
