import { expect } from 'chai';
import { CommandRefused } from '#web/controlPlaneClient.ts';
import { isBehind, type InstanceDetailRow } from '#projections/instances/instanceDetail.ts';
import { offeredActions } from '#web/instances/instanceActions.ts';
import { createBody, errorsByField, FORM_DEFAULTS, moduleList } from '#web/instances/instanceForm.ts';
import { formatDuration, statusBadge } from '#web/instances/instanceView.ts';
import { formatBytes } from '#shared/formatBytes.ts';
import { dumpFormatOf, isArchive } from '#web/instances/uploadReceiver.ts';

describe('web: instance helpers', () => {
  it('tells a pg_dump custom archive from plain SQL by the first bytes, and refuses the rest', () => {
    expect(dumpFormatOf(Buffer.from('PGDMP\x01\x0e\x00\x04\x08', 'latin1'))).to.equal('custom');
    expect(dumpFormatOf(Buffer.from('--\n-- PostgreSQL database dump\n--\nCOPY t (a) FROM stdin;\n1\tAcmé\r\n\\.\n'))).to.equal('plain');
    expect(dumpFormatOf(Buffer.from([0x1f, 0x8b, 8, 0]))).to.deep.equal({ refused: 'not a pg_dump custom or plain SQL file (it is gzip-compressed: decompress it first)' });
    const tar = Buffer.alloc(512);
    tar.write('ustar', 257, 'latin1');
    tar.write('dump.sql', 0, 'latin1');
    expect(dumpFormatOf(tar)).to.deep.equal({ refused: 'not a pg_dump custom or plain SQL file (it is a tar archive: use pg_dump -Fc or plain SQL)' });
    expect(dumpFormatOf(Buffer.from([0x00, 0x01, 0x41]))).to.deep.equal({ refused: 'not a pg_dump custom or plain SQL file' });
    expect(dumpFormatOf(Buffer.alloc(0))).to.deep.equal({ refused: 'the dump file is empty' });
  });

  it('accepts zip, tar and gzip filestore archives', () => {
    const tar = Buffer.alloc(512);
    tar.write('ustar', 257, 'latin1');
    expect([Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('PK\x05\x06', 'latin1'), Buffer.from([0x1f, 0x8b]), tar].map(isArchive)).to.deep.equal([true, true, true, true]);
    expect(isArchive(Buffer.from('filestore/'))).to.equal(false);
  });

  it('writes sizes and durations as people read them', () => {
    expect([20 * 2 ** 30, 512 * 2 ** 20, 4096, 12].map(formatBytes)).to.deep.equal(['20 GiB', '512 MiB', '4 KiB', '12 bytes']);
    expect([850, 4200, 187_000, 3_720_000].map(formatDuration)).to.deep.equal(['850 ms', '4.2 s', '3 min 07 s', '1 h 02 min']);
  });

  it('offers the actions the domain allows for the row, only destroy while a job runs', () => {
    expect(offeredActions(detailRow({ status: 'running' }))).to.deep.equal(['stop', 'restart', 'rebuild', 'destroy']);
    expect(offeredActions(detailRow({ status: 'stopped' }))).to.deep.equal(['start', 'rebuild', 'destroy']);
    expect(offeredActions(detailRow({ status: 'failed' }))).to.deep.equal(['restart', 'rebuild', 'destroy']);
    expect(offeredActions(detailRow({ status: 'failed', provisioned: false })), 'nothing to restart without a database').to.deep.equal(['rebuild', 'destroy']);
    expect(offeredActions(detailRow({ status: 'running', job_active: true, job_kind: 'restart' }))).to.deep.equal(['destroy']);
    expect(offeredActions(detailRow({ status: 'destroyed', provisioned: false }))).to.deep.equal([]);
  });

  it('names a job in progress on the badge with its step, except a provisioning, which has its own status', () => {
    const steps = (...states: string[]) => states.map((state, i) => ({ step: ['stop', 'start', 'health_check'][i] ?? `step_${i}`, state }));
    const restarting = detailRow({ status: 'running', job_active: true, job_kind: 'restart' });
    expect(statusBadge(restarting, steps('pending', 'pending', 'pending'))).to.deep.equal({ label: 'restarting · step 1 of 3', tone: 'busy' });
    expect(statusBadge(restarting, steps('completed', 'running', 'pending'))).to.deep.equal({ label: 'restarting · step 2 of 3', tone: 'busy' });
    expect(statusBadge(restarting, steps('completed', 'completed', 'pending')), 'between two steps').to.deep.equal({ label: 'restarting · step 3 of 3', tone: 'busy' });
    expect(statusBadge(detailRow({ status: 'running', job_active: true, job_kind: 'sleep' }), steps('running')).label).to.equal('going to sleep · step 1 of 1');
    expect(statusBadge(detailRow({ status: 'stopped', job_active: true, job_kind: 'start' }), steps('running', 'pending')).label).to.equal('starting · step 1 of 2');
    expect(statusBadge(detailRow({ status: 'running' }), steps('completed', 'completed', 'completed')), 'the job ended').to.deep.equal({ label: 'running', tone: 'running' });
    expect(statusBadge(detailRow({ status: 'provisioning', job_active: true, job_kind: 'provision' }), steps('running'))).to.deep.equal({ label: 'provisioning', tone: 'provisioning' });
    const firstBuild = [{ step: 'resolve_source', state: 'completed' }, { step: 'database', state: 'running' }];
    expect(statusBadge(detailRow({ status: 'provisioning', job_active: true, job_kind: 'rebuild' }), firstBuild).label, 'a rebuild that provisions').to.equal('provisioning');
    const rebuild = ['resolve_source', 'fetch_code', 'build', 'stop', 'update_modules', 'start', 'health_check'].map((step, i) => ({ step, state: i < 3 ? 'completed' : i === 3 ? 'running' : 'pending' }));
    expect(statusBadge(detailRow({ status: 'provisioning', job_active: true, job_kind: 'rebuild' }), rebuild).label).to.equal('rebuilding · step 4 of 7');
  });

  it('calls an instance behind only when both its commit and its branch head are known and differ', () => {
    expect(isBehind({ commit: 'a1', branch_head: 'b2' })).to.equal(true);
    expect(isBehind({ commit: 'a1', branch_head: 'a1' })).to.equal(false);
    expect(isBehind({ commit: null, branch_head: 'b2' })).to.equal(false);
    expect(isBehind({ commit: 'a1', branch_head: null })).to.equal(false);
  });

  it('builds the create body: modules split, empty optional fields left to the defaults', () => {
    expect(moduleList(' sale, stock\n l10n_ar,,')).to.deep.equal(['sale', 'stock', 'l10n_ar']);
    expect(createBody({ ...FORM_DEFAULTS, name: ' Dev ', project: ' acme ', stage: '', edition: '', branch: ' ', modules: 'stock' })).to.deep.equal({ name: 'Dev', project: 'acme', erp_version: '19.0', modules: ['stock'] });
    expect(createBody({ ...FORM_DEFAULTS, name: 'x', project: 'y', git_repo: ' git@h:r.git ', clone_from: 'acme-prod' })).to.include({ git_repo: 'git@h:r.git', clone_from: 'acme-prod', branch: 'main' });
  });

  it('puts each refusal next to its field, in words, and the rest on the form', () => {
    const body = createBody({ ...FORM_DEFAULTS, name: 'x', project: 'y', modules: 'stock Bad' });
    const refusal = new CommandRefused(422, [
      { loc: ['body', 'modules', 1], msg: 'must match pattern "^[a-z]…"', type: 'value_error.pattern' },
      { loc: ['body', 'git_repo'], msg: 'the URL contains spaces', type: 'value_error' },
      { loc: ['body', 'upload', 'upload_id'], msg: 'must be a uuid', type: 'value_error.format' },
    ]);
    expect(errorsByField(refusal, body)).to.deep.equal({
      modules: '“Bad” is not a technical module name: a lowercase letter, then lowercase letters, digits or _',
      git_repo: 'the URL contains spaces',
      _form: 'upload.upload_id: must be a uuid',
    });
    expect(errorsByField(new CommandRefused(409, 'project acme already has a production instance'), body)).to.deep.equal({ _form: 'project acme already has a production instance' });
  });
});

/** An instance_detail row: a provisioned, running development instance unless overridden. */
function detailRow(overrides: Partial<InstanceDetailRow>): InstanceDetailRow {
  const at = new Date('2026-11-23T10:00:00Z');
  return {
    slug: 'acme-dev',
    name: 'Dev',
    project: 'acme',
    stage: 'development',
    erp_version: '18.0',
    edition: 'community',
    modules: [],
    git_repo: null,
    branch: 'main',
    status: 'running',
    url: null,
    last_error: null,
    created_at: at,
    updated_at: at,
    source: { kind: 'empty' },
    created_by: 'someone',
    runtime: 'process',
    standin: true,
    commit: null,
    branch_head: null,
    addons_path: null,
    port: null,
    demo_data: false,
    gevent_port: null,
    gevent_url: null,
    neutralization: null,
    provisioned: true,
    rebuild_pending: false,
    job_id: 'job-1',
    job_kind: 'provision',
    job_active: false,
    last_action_at: at,
    ...overrides,
  };
}
