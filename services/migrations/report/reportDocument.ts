import type { Content } from 'pdfmake';
import { isJobEnded } from '#shared/workflow/jobState.ts';
import { pdfText, reportTime } from './reportFormat.ts';
import { statusColor, statusWords, who, type ReportInput } from './reportInput.ts';
import type { DocumentDefinition } from './renderPdf.ts';
import { artifacts, decisions, facts, failures, MUTED, readiness, recipe, steps, summary, warnings } from './reportSections.ts';

/** The font every style uses: a PDF standard font, so nothing is downloaded or embedded. */
export const REPORT_FONT = 'Helvetica';
const ACCENT = '#0f4c5c';

/** The first page: what a consultant hands over, with the customer-facing name and the route. */
function titlePage(input: ReportInput): Content[] {
  const { migration, run } = input;
  const live = !isJobEnded(run.job);
  return [
    { text: 'FORJA  ·  MIGRATION REPORT', style: 'kicker', margin: [0, 40, 0, 0] },
    { canvas: [{ type: 'line', x1: 0, y1: 0, x2: 495, y2: 0, lineWidth: 2, lineColor: ACCENT }], margin: [0, 6, 0, 90] },
    { text: pdfText(migration.name), style: 'title' },
    { text: `ERP database migration from ${migration.origin} to ${migration.destination}`, style: 'subtitle', margin: [0, 6, 0, 36] },
    facts([
      ['Route', { text: `${migration.origin} -> ${migration.destination}`, bold: true }],
      ['Flavor', migration.flavor],
      ['Engine', migration.engine],
      ['Purpose', migration.purpose],
      ['Run', `${run.number} (${run.kind})`],
      ['Status', { text: statusWords(run.job.status), bold: true, color: statusColor(run.job.status) }],
      ['Generated', `${reportTime(input.generatedAt)}, by ${input.generatedBy === 'system' ? "the run's report step" : who(input, input.generatedBy)}`],
    ]),
    ...(live
      ? [{ text: 'This run is still in progress: the report shows it as it stood when it was generated.', style: 'notice', margin: [0, 24, 0, 0] } as Content]
      : []),
    {
      stack: [
        { text: 'Recipe', style: 'label' },
        { text: pdfText(migration.recipe.key) },
        { text: migration.recipe.sha256, style: 'hash' },
      ],
      absolutePosition: { x: 50, y: 700 },
    },
    { text: '', pageBreak: 'after' },
  ];
}

/**
 * A run's report as a pdfmake document definition: a pure function of what `ReportInput` holds
 * (unit-tested as data; `renderPdf` turns it into bytes). A4, standard fonts, page numbers in the
 * footer and the migration's name in the header after the title page.
 */
export function reportDocument(input: ReportInput): DocumentDefinition {
  const name = pdfText(input.migration.name);
  return {
    pageSize: 'A4',
    pageMargins: [50, 56, 50, 56],
    info: { title: `Migration report: ${name}, run ${input.run.number}`, author: 'Forja', subject: `${input.migration.origin} -> ${input.migration.destination}`, creationDate: input.generatedAt },
    header: (page: number): Content => (page === 1 ? '' : { text: `${name}  ·  run ${input.run.number}`, style: 'running', alignment: 'right', margin: [50, 24, 50, 0] }),
    footer: (page: number, pages: number): Content => ({
      columns: [
        { text: `Forja migration report  ·  ${reportTime(input.generatedAt)}`, style: 'running' },
        { text: `Page ${page} of ${pages}`, style: 'running', alignment: 'right' },
      ],
      margin: [50, 20, 50, 0],
    }),
    // A heading with nothing after it on its page moves to the next one.
    pageBreakBefore: (node: { headlineLevel?: number }, followingOnPage: unknown[]) => node.headlineLevel === 1 && followingOnPage.length === 0,
    content: [...titlePage(input), ...summary(input), ...decisions(input), ...readiness(input), ...steps(input), ...warnings(input), ...failures(input), ...artifacts(input), ...recipe(input)],
    defaultStyle: { font: REPORT_FONT, fontSize: 9.5, lineHeight: 1.2, color: '#111827' },
    styles: {
      // No letter spacing: pdftotext and screen readers would read it as F O R J A.
      kicker: { fontSize: 9, bold: true, color: ACCENT },
      title: { fontSize: 28, bold: true, color: '#111827', lineHeight: 1.1 },
      subtitle: { fontSize: 13, color: MUTED },
      h2: { fontSize: 13, bold: true, color: ACCENT, margin: [0, 16, 0, 6] },
      label: { color: MUTED },
      th: { bold: true, fontSize: 8, color: '#374151' },
      cell: { fontSize: 8.5 },
      muted: { color: MUTED },
      small: { fontSize: 8 },
      notice: { color: '#b45309', bold: true },
      running: { fontSize: 8, color: MUTED },
      hash: { font: 'Courier', fontSize: 8 },
      log: { font: 'Courier', fontSize: 7, lineHeight: 1.1 },
    },
  };
}
