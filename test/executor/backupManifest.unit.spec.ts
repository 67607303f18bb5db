import { expect } from 'chai';
import { describeManifest, manifestMismatch, parseBackupManifest } from '#services/executor/migration/backup/backupManifest.ts';
import { backupFilestorePick, missingDump } from '#services/executor/migration/backup/backupArchive.ts';

/** What the ERP's database manager writes into a backup .zip (odoo/service/db.py, dump_db_manifest). */
const ERP_MANIFEST = {
  odoo_dump: '1',
  db_name: 'acme_prod',
  version: '16.0+e-20240115',
  version_info: [16, 0, 0, 'final', 0, 'e'],
  major_version: '16.0',
  pg_version: '15.5',
  modules: { base: '16.0.1.3', sale: '16.0.1.2', crm: '16.0.1.0' },
};

describe('executor: an ERP backup manifest', () => {
  it("reads the series, version, database, PostgreSQL version and module count of the ERP's manifest", () => {
    const manifest = parseBackupManifest(JSON.stringify(ERP_MANIFEST));
    expect(manifest).to.deep.equal({ series: '16.0', version: '16.0+e-20240115', databaseName: 'acme_prod', pgVersion: '15.5', modules: 3 });
    expect(describeManifest(manifest)).to.equal('ERP 16.0+e-20240115, database acme_prod, PostgreSQL 15.5, 3 installed module(s)');
  });

  it('takes the series from version_info, then from version, when an older manifest has no major_version', () => {
    expect(parseBackupManifest(JSON.stringify({ version_info: [15, 0, 0, 'final', 0, ''] })).series).to.equal('15.0');
    expect(parseBackupManifest(JSON.stringify({ version_info: ['saas~17', 1, 0, 'final', 0, ''] })).series).to.equal('saas~17.1');
    expect(parseBackupManifest(JSON.stringify({ version: '14.0+e' })).series).to.equal('14.0');
    expect(parseBackupManifest(JSON.stringify({ version: 'saas~16.3+e' })).series).to.equal('saas~16.3');
    expect(parseBackupManifest(JSON.stringify({ version: 'nightly' })).series).to.equal(undefined);
    expect(parseBackupManifest('{}')).to.deep.equal({ series: undefined, version: undefined, databaseName: undefined, pgVersion: undefined, modules: undefined });
    expect(describeManifest(parseBackupManifest('{}'))).to.equal('no ERP version (not checked against the origin)');
  });

  it("refuses another series than the migration's origin in plain words, and says nothing when they match or the manifest is silent", () => {
    const manifest = parseBackupManifest(JSON.stringify({ ...ERP_MANIFEST, major_version: '15.0', version: '15.0' }));
    expect(manifestMismatch(manifest, '16.0')).to.equal('the backup is of a 15.0 database, but this migration starts from 16.0: create a migration from 15.0, or give it a backup of the 16.0 database');
    expect(manifestMismatch(parseBackupManifest(JSON.stringify({ version: 'saas~16.3+e' })), '16.0')).to.match(/^the backup is of a saas~16\.3 database \(version saas~16\.3\+e\), but this migration starts from 16\.0: /);
    expect(manifestMismatch(parseBackupManifest(JSON.stringify(ERP_MANIFEST)), '16.0')).to.equal(undefined);
    expect(manifestMismatch(parseBackupManifest('{}'), '16.0')).to.equal(undefined);
  });

  it('refuses a manifest that is not a JSON object', () => {
    expect(() => parseBackupManifest('{"version": ')).to.throw(/^its manifest\.json is not valid JSON \(.+\): the backup is damaged or was not made by the ERP$/);
    expect(() => parseBackupManifest('[1, 2]')).to.throw('its manifest.json is not a JSON object: the backup is damaged or was not made by the ERP');
    expect(() => parseBackupManifest('null')).to.throw(/not a JSON object/);
  });

  it("takes only the filestore/ folder of a backup, that folder stripped", () => {
    expect(backupFilestorePick(['filestore', 'ab', 'ab12'])).to.deep.equal(['ab', 'ab12']);
    expect(backupFilestorePick(['filestore'])).to.deep.equal([]);
    expect(backupFilestorePick(['dump.sql'])).to.equal(undefined);
    expect(backupFilestorePick(['sessions', 'filestore', 'x'])).to.equal(undefined);
  });

  it('names what a zip without dump.sql holds, ten names at most', () => {
    expect(missingDump({ dumpBytes: 10, manifest: undefined, top: ['dump.sql'] })).to.equal(undefined);
    expect(missingDump({ dumpBytes: undefined, manifest: undefined, top: ['manifest.json', 'filestore/ (2 file(s))', 'acme.dump'] })).to.equal(
      "the input is a .zip without dump.sql at its top (it holds manifest.json, filestore/ (2 file(s)), acme.dump): give the ERP's own backup .zip (dump.sql, manifest.json, filestore/), or the dump itself",
    );
    const many = Array.from({ length: 13 }, (_, i) => `f${i}`);
    expect(missingDump({ dumpBytes: undefined, manifest: undefined, top: many })).to.include('f9 and 3 more)');
    expect(missingDump({ dumpBytes: undefined, manifest: undefined, top: [] })).to.include('(it holds nothing)');
  });
});
