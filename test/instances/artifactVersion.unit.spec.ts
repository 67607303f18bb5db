import { expect } from 'chai';
import { majorVersion } from '#services/executor/migration/steps/dumpArtifact.ts';
import { artifactVersion } from '#services/instances/domain/artifactVersion.ts';
import { schemaValidator } from '#shared/schemaValidator.ts';

describe('the ERP version of a migration artifact', () => {
  const migration = { origin: '16.0', destination: '17.0' };

  it('is what the step recorded; for an artifact recorded before, the origin for a backup and the destination for a dump', () => {
    expect(artifactVersion({ kind: 'dump', erp_version: '18.0' }, migration)).to.equal('18.0');
    expect(artifactVersion({ kind: 'backup', erp_version: null }, migration)).to.equal('16.0');
    expect(artifactVersion({ kind: 'dump', erp_version: null }, migration)).to.equal('17.0');
  });

  it('is the major version of base’s latest_version, or nothing when that is no version', () => {
    expect(majorVersion('17.0.1.3')).to.equal('17.0');
    expect(majorVersion('16.0')).to.equal('16.0');
    expect(majorVersion('saas~17.1.1.0')).to.equal(null);
    expect(majorVersion('')).to.equal(null);
    expect(majorVersion('170.1')).to.equal('170.1');
  });

  it('names the artifact an instance starts from in InstanceRequested, refusing a key outside the migrations folder', () => {
    const valid = schemaValidator('events/InstanceRequested.v1.json');
    const event = (source: object) => ({ slug: 'acme-x', name: 'X', project: 'acme', stage: 'staging', erpVersion: '17.0', edition: 'community', modules: [], gitRepo: null, branch: 'main', source, jobId: 'j' });
    const source = { kind: 'artifact', artifactId: 1019, migration: 'sur', run: 1, artifactKind: 'dump', blobKey: 'migrations/sur/runs/1/dump_result.dump', filestoreKey: null };
    expect(valid(event(source))).to.equal(true);
    expect(valid(event({ ...source, filestoreKey: 'migrations/sur/runs/1/filestore_result.tar.gz' }))).to.equal(true);
    expect(valid(event({ ...source, blobKey: 'instances/acme/logs/erp.log' }))).to.equal(false);
    expect(valid(event({ ...source, blobKey: 'migrations/sur/runs/1/../../x' }))).to.equal(false);
    expect(valid(event({ ...source, artifactKind: 'report' }))).to.equal(false);
  });
});
