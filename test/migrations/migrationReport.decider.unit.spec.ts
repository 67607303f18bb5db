import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import type { MigrationEvent } from '#services/migrations/domain/migration.ts';
import { reportArtifactId } from '#services/migrations/domain/migrationReports.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';
import { ANA, migrationOf, PLAN, story } from './report/reportFixture.ts';

const file = (name: string) => ({ name, key: `migrations/acme-17/runs/2/${name}`, bytes: 1234, sha256: 'c'.repeat(64) });
const generated = (number: number, id: number, name: string): MigrationEvent => ({
  type: 'MigrationReportGenerated',
  data: { slug: 'acme-17', number, artifact: { id, kind: 'report', ...file(name) }, by: ANA },
});

describe('migration decider: reports generated on demand', () => {
  const spec = deciderSpec(migrationDecider);
  const history = (): MigrationEvent[] => story();

  it('registers a report of any run that exists, numbering reports down from run × 1000 + 999', () => {
    spec.given(history()).when({ type: 'RegisterReport', number: 2, file: file('a.pdf'), by: ANA }).then([generated(2, 2999, 'a.pdf')]);
    spec.given([...history(), generated(2, 2999, 'a.pdf')]).when({ type: 'RegisterReport', number: 2, file: file('b.pdf'), by: ANA }).then([generated(2, 2998, 'b.pdf')]);
    spec.given(history()).when({ type: 'RegisterReport', number: 1, file: file('c.pdf'), by: ANA }).then([generated(1, 1999, 'c.pdf')]);
  });

  it('lists the reports on their run, and a step artifact id never equals a report id', () => {
    const migration = migrationOf([...history(), generated(2, 2999, 'a.pdf'), generated(2, 2998, 'b.pdf')]);
    const run = migration.runs.find((candidate) => candidate.number === 2)!;
    expect(run.reports?.map((report) => report.id)).to.deep.equal([2999, 2998]);
    expect(migration.runs.find((candidate) => candidate.number === 1)!.reports).to.equal(undefined);
    expect(reportArtifactId(run)).to.equal(2997);
    const stepIds = PLAN.map((_, position) => 2000 + position);
    expect(stepIds).not.to.include.members([2999, 2998, 2997]);
  });

  it('refuses a run that does not exist (404), and a report once the run has no id left (409)', () => {
    spec.given(history()).when({ type: 'RegisterReport', number: 3, file: file('a.pdf'), by: ANA }).thenThrows(DomainError, /acme-17 has no run 3/);
    const error = (() => {
      try {
        migrationDecider.decide({ type: 'RegisterReport', number: 9, file: file('a.pdf'), by: ANA }, migrationOf(history()));
      } catch (caught) {
        return caught as DomainError;
      }
      return undefined;
    })();
    expect(error?.kind).to.equal('not_found');
    // 5 plan steps use positions 0..4: 995 reports fit (999..5), the 996th would take position 4's id.
    const full = [...history(), ...Array.from({ length: 995 }, (_, index) => generated(2, 2999 - index, `r${index}.pdf`))];
    expect(reportArtifactId(migrationOf(full).runs[1]!)).to.equal(2004);
    spec.given(full).when({ type: 'RegisterReport', number: 2, file: file('x.pdf'), by: ANA }).thenThrows(DomainError, /already has 995 reports/);
  });

  it('refuses a report of a deleted migration, and of a run a stop dropped', () => {
    const deleted: MigrationEvent = { type: 'MigrationDeleted', data: { slug: 'acme-17' } };
    spec.given([...history(), deleted]).when({ type: 'RegisterReport', number: 2, file: file('a.pdf'), by: ANA }).thenThrows(DomainError, /no such migration/);
    const stopped: MigrationEvent = { type: 'MigrationStopped', data: { slug: 'acme-17', runs: [1, 2] } };
    spec.given([...history(), stopped]).when({ type: 'RegisterReport', number: 2, file: file('a.pdf'), by: ANA }).thenThrows(DomainError, /has no run 2/);
  });

  it('MigrationReportGenerated matches its schema; a report of another kind or a bad hash does not', () => {
    const validate = schemaValidator('events/MigrationReportGenerated.v1.json');
    const event = generated(2, 2999, 'report-20261123T091503Z-3fa9c1.pdf');
    expect(validate(event.data), describeErrors(validate)).to.equal(true);
    const { data } = event as Extract<MigrationEvent, { type: 'MigrationReportGenerated' }>;
    expect(validate({ ...data, artifact: { ...data.artifact, kind: 'dump' } })).to.equal(false);
    expect(validate({ ...data, artifact: { ...data.artifact, sha256: 'C'.repeat(64) } })).to.equal(false);
    expect(validate({ ...data, artifact: { ...data.artifact, key: '../../etc/passwd' } })).to.equal(false);
  });
});
