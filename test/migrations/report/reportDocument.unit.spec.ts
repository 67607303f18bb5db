import { expect } from 'chai';
import type { Content } from 'pdfmake';
import type { MigrationEvent } from '#services/migrations/domain/migration.ts';
import { reportDocument } from '#services/migrations/report/reportDocument.ts';
import { pdfText, reportBytes, reportDuration } from '#services/migrations/report/reportFormat.ts';
import type { ReportInput } from '#services/migrations/report/reportInput.ts';
import { runHistory } from '#services/migrations/report/runHistory.ts';
import { ANA, DUMP_SHA, EMAILS, LUIS, migrationOf, SETTINGS, story } from './reportFixture.ts';

/** Every text of a node, depth first, one entry per text leaf. */
function texts(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(texts);
  if (node && typeof node === 'object') {
    const { text, stack, ul, columns, table } = node as { text?: unknown; stack?: unknown; ul?: unknown; columns?: unknown; table?: { body?: unknown } };
    return [...texts(text), ...texts(stack), ...texts(ul), ...texts(columns), ...texts(table?.body)];
  }
  return [];
}
const joined = (node: unknown) => texts(node).join(' ');

function inputFor(number: number, events = story(), extra: Partial<ReportInput> = {}): ReportInput {
  const migration = migrationOf(events);
  return {
    migration,
    run: migration.runs.find((run) => run.number === number)!,
    history: runHistory(events, number)!,
    emails: EMAILS,
    logTail: ['last line of the run log'],
    generatedAt: new Date('2026-11-23T10:00:00Z'),
    generatedBy: ANA,
    readiness: { run: null, hops: [], note: 'no run has checked the modules yet: run the migration, and its coverage pre-flight makes the report' },
    ...extra,
  };
}

/** The document's content split at the title page's page break, and each body section by its heading. */
function sections(input: ReportInput) {
  const document = reportDocument(input);
  const content = document.content as Content[];
  const breakAt = content.findIndex((node) => typeof node === 'object' && (node as { pageBreak?: string }).pageBreak === 'after');
  const body = content.slice(breakAt + 1);
  const byHeading = new Map<string, Content[]>();
  let current = '';
  for (const node of body) {
    const style = (node as { style?: string; stack?: Array<{ style?: string; text?: string }> }).style;
    const heading = style === 'h2' ? (node as { text: string }).text : (node as { stack?: Array<{ style?: string; text?: string }> }).stack?.[0]?.style === 'h2' ? (node as { stack: Array<{ text: string }> }).stack[0]!.text : undefined;
    if (heading) current = heading;
    byHeading.set(current, [...(byHeading.get(current) ?? []), node]);
  }
  return { document, title: content.slice(0, breakAt), body: byHeading };
}

describe('migration report: the document definition', () => {
  it('opens with a title page: the customer-facing name, route, flavor, engine, purpose, run and status', () => {
    const { title, document } = sections(inputFor(2));
    const text = joined(title);
    for (const expected of ['FORJA  ·  MIGRATION REPORT', 'Acme Distribución S.A.', 'from 16.0 to 17.0', '16.0 -> 17.0', 'community', 'openupgrade', 'production', '2 (resume)', 'Succeeded', 'ana@example.com', SETTINGS.recipe.sha256]) {
      expect(text).to.include(expected);
    }
    expect(text).not.to.include('still in progress');
    expect(document['pageSize']).to.equal('A4');
    expect((document['defaultStyle'] as { font: string }).font).to.equal('Helvetica');
  });

  it('numbers pages in the footer and names the migration in the header after the title page', () => {
    const { document } = sections(inputFor(2));
    const footer = document['footer'] as (page: number, pages: number) => Content;
    const header = document['header'] as (page: number) => Content;
    expect(joined(footer(2, 3))).to.include('Page 2 of 3').and.include('2026-11-23 10:00:00 UTC');
    expect(joined(header(1))).to.equal('');
    expect(joined(header(2))).to.include('Acme Distribución S.A.').and.include('run 2');
  });

  it('sums the run up: status, kind, who ran it and when, duration and step counts', () => {
    const text = joined(sections(inputFor(2)).body.get('Summary'));
    expect(text).to.include('Resume of run 1').and.include('ana@example.com, 2026-11-23 09:01:').and.include('5 planned: 2 reused, 3 completed').and.include('forja_mig_acme_17');
    expect(text).to.match(/Duration \d+ min \d\d s/);
    expect(joined(sections(inputFor(1)).body.get('Summary'))).to.include('Failed').and.include('upgrade: the ERP exited with 1: division by zero in sale');
  });

  it('lists overrides and decisions with their actors as e-mails: the pause, the resume and the gate with its note', () => {
    const text = joined(sections(inputFor(2)).body.get('Overrides and decisions'));
    expect(text).to.include('ana@example.com Pause').and.include('Gate approve').and.include('approved: invoices checked with the customer').and.include('luis@example.com');
    expect(text).not.to.include(LUIS);
    expect(joined(sections(inputFor(1)).body.get('Overrides and decisions'))).to.include('None: the run went by its recipe');
  });

  it('shows a run-anyway as an override with its reason and who asked', () => {
    const events: MigrationEvent[] = [
      ...story().slice(0, 9),
      { type: 'MigrationRunRequested', data: { slug: 'acme-17', number: 2, jobId: 'job-2', kind: 'run-anyway', plan: (story()[1]!.data as { plan: unknown }).plan, resumedFrom: 1, reused: {}, skipped: ['views'], skipPreflight: true, reason: 'the views are dropped on purpose' } } as MigrationEvent,
    ];
    const recorded = events.map((event, index) => ({ ...event, metadata: { actor: index === 9 ? LUIS : ANA, at: new Date(Date.UTC(2026, 10, 23, 9, index)).toISOString() } }));
    const text = joined(sections(inputFor(2, recorded)).body.get('Overrides and decisions'));
    expect(text).to.include('luis@example.com').and.include('Override').and.include('ran past the failed pre-flight of run 1: the views are dropped on purpose');
  });

  it('has a steps table with a header row and one row per step: id, kind, status, attempts, start and duration', () => {
    const table = sections(inputFor(2))
      .body.get('Steps')!
      .find((node) => (node as { table?: unknown }).table) as { table: { headerRows: number; body: Content[][] } };
    expect(table.table.headerRows).to.equal(1);
    const rows = table.table.body.map((row) => row.map(joined));
    expect(rows[0]).to.deep.equal(['#', 'Step', 'Kind', 'Status', 'Attempts', 'Started (UTC)', 'Duration']);
    expect(rows.slice(1).map((row) => row[1]!.split(' ')[0])).to.deep.equal(['fetch', 'views', 'upgrade', 'approve', 'dump_result']);
    expect(rows[1]).to.deep.equal(['1', 'fetch Download the database', 'fetch', 'reused from run 1', '0', '-', '-']);
    // upgrade: paused after 2 s, then 125 s on its second attempt.
    expect(rows[3]).to.deep.equal(['3', 'upgrade', 'erp', 'completed', '2', '2026-11-23 09:01:18', '2 min 07 s']);
    expect(rows[4]![3]).to.equal('completed');
    expect(rows[4]![6]).to.equal('10 min 01 s');
  });

  it('lists every warning in full, and says so when there is none', () => {
    const text = joined(sections(inputFor(1)).body.get('Warnings'));
    expect(text).to.include('views (check)').and.include('check views: expected 0 row(s), found 2 row(s): sale_report_custom, x_margin_view').and.include('module acme_extra is not in 17.0: uninstall it or port it');
    expect(joined(sections(inputFor(2)).body.get('Warnings'))).to.include('reported by run 1');
  });

  it('shows each failure with the last 40 lines of the log the executor kept', () => {
    const text = joined(sections(inputFor(1)).body.get('Failures'));
    expect(text).to.include('upgrade').and.include('attempt 1, 2026-11-23').and.include('division by zero in sale').and.include('The run log when it failed:');
    expect(text).to.include('upgrade line 6\n').and.include('upgrade line 45');
    expect(text).not.to.include('upgrade line 5\n');
    expect(joined(sections(inputFor(2)).body.get('Failures'))).to.include('No step failed in this run.');
  });

  it('lists a rejected gate as a failure with the rejecting user by e-mail, and the run log tail when no event kept one', () => {
    const events = story().slice(0, 18);
    const rejected = { ...story()[18]!, data: { ...(story()[18]!.data as object), decision: 'rejected' } } as (typeof events)[number];
    const failedJob = { type: 'MigrationJobFailed', data: { slug: 'acme-17', number: 2, jobId: 'job-2', step: 'approve', error: `rejected by ${LUIS}` }, metadata: { actor: 'system', at: '2026-11-23T09:30:00Z' } } as (typeof events)[number];
    const text = joined(sections(inputFor(2, [...events, rejected, failedJob])).body.get('Failures'));
    expect(text).to.include('approve').and.include('rejected by luis@example.com').and.include('The last lines of the run log:').and.include('last line of the run log');
  });

  it('lists the artifacts with id, kind, size and the full sha256, then the on-demand reports', () => {
    const report: MigrationEvent = { type: 'MigrationReportGenerated', data: { slug: 'acme-17', number: 2, artifact: { id: 2999, kind: 'report', name: 'report-1.pdf', key: 'migrations/acme-17/runs/2/report-1.pdf', bytes: 9000, sha256: 'ab'.repeat(32) }, by: ANA } };
    const events = [...story(), { ...report, metadata: { actor: ANA, at: '2026-11-23T10:00:00Z' } }];
    const table = sections(inputFor(2, events))
      .body.get('Artifacts')!
      .find((node) => (node as { table?: unknown }).table) as { table: { body: Content[][] } };
    const rows = table.table.body.map((row) => row.map(joined));
    expect(rows).to.deep.equal([
      ['ID', 'File and checksum', 'Kind', 'Size'],
      ['2004', `dump_result.dump sha256 ${'f0'.repeat(32)}`, 'dump', '50.0 MiB 52,428,800 bytes'],
      ['2999', `report-1.pdf sha256 ${'ab'.repeat(32)}`, 'report', '8.8 KiB 9,000 bytes'],
    ]);
    expect(joined(sections(inputFor(1)).body.get('Artifacts'))).to.include('This run stored no files yet.');
    expect(joined(sections(inputFor(1)).body.get('Summary'))).not.to.include(DUMP_SHA);
  });

  it('ends with the recipe key and sha256, and when and by whom the report was made', () => {
    const text = joined(sections(inputFor(2)).body.get('Recipe'));
    expect(text).to.include('community.16.0-17.0').and.include(SETTINGS.recipe.sha256).and.include('2026-11-23 10:00:00 UTC by ana@example.com');
    expect(joined(sections(inputFor(2, story(), { generatedBy: 'system' })).body.get('Recipe'))).to.include("by the run's report step");
  });

  it("says a live run's report is in progress, and shows the report step making it as running", () => {
    const events = story().slice(0, 17); // run 2 at its gate step's start
    const { title, body } = sections(inputFor(2, events, { self: 'approve', generatedBy: 'system' }));
    expect(joined(title)).to.include('In progress').and.include('This run is still in progress');
    expect(joined(body.get('Steps'))).to.include('running (this report)');
    expect(joined(body.get('Summary'))).to.include('Ended not yet').and.match(/Duration .* so far/);
  });
});

describe('migration report: text the standard fonts can draw', () => {
  it('keeps Latin-1 and Windows-1252 text, writes the arrow as ->, and replaces anything else by ?', () => {
    expect(pdfText('Distribución Ñandú “quoted” — 5 €…')).to.equal('Distribución Ñandú “quoted” — 5 €…');
    expect(pdfText('16.0 → 17.0')).to.equal('16.0 -> 17.0');
    expect(pdfText('Компания 😀 中')).to.equal('???????? ? ?');
    expect(pdfText('a\tb\u0007c\r\nd\u0085')).to.equal('a  bc\nd');
  });

  it('reads durations and sizes as a person would', () => {
    expect([850, 12_300, 245_000, 7_380_000, 97_200_000].map(reportDuration)).to.deep.equal(['850 ms', '12.3 s', '4 min 05 s', '2 h 03 min', '1 d 03 h']);
    expect(reportDuration(null)).to.equal('-');
    expect(reportBytes(12)).to.equal('12 bytes');
    expect(reportBytes(1_288_490_189)).to.equal('1.2 GiB (1,288,490,189 bytes)');
  });

  it('shows the readiness report: per hop its counts, the modules that block or warn with why, how many are ready', () => {
    const readiness = {
      run: 1,
      note: "made by run 1's coverage pre-flight from the restored database and each hop's addons path",
      hops: [
        {
          origin: '16.0',
          destination: '17.0',
          counts: { ok: 1, warning: 0, blocks: 1 },
          modules: [
            { module: 'acme_custom', found: 'missing', where: null, openupgrade: null, verdict: 'blocks' as const, note: "not on the destination's addons path" },
            { module: 'sale', found: 'standard', where: '/opt/odoo/17.0/addons/sale', openupgrade: 'done', verdict: 'ok' as const, note: 'OpenUpgrade: done' },
          ],
        },
      ],
    };
    const text = joined(reportDocument(inputFor(1, story(), { readiness })).content);
    expect(text).to.include('Readiness').and.include('16.0 -> 17.0: 1 ready, 0 with a warning, 1 blocking');
    expect(text).to.include("acme_custom missing - blocks: not on the destination's addons path");
    expect(text).to.include('The other 1 installed modules are ready.');
    expect(joined(reportDocument(inputFor(1)).content)).to.include('No readiness report: no run has checked the modules yet');
  });
});
