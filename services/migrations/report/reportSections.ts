import type { Content, TableCell } from 'pdfmake';
import type { StepState } from '#shared/workflow/jobState.ts';
import { pdfText, reportBytes, reportDuration, reportTime } from './reportFormat.ts';
import { reportedArtifacts, reportedWarnings, statusColor, statusWords, who, withEmails, type ReportInput } from './reportInput.ts';
import type { Failure } from './runHistory.ts';

/** The report's sections after its title page, one function each: summary, decisions, steps, warnings, failures, artifacts, recipe. */

export const MUTED = '#6b7280';
const RULE = '#d1d5db';
/** Lines of a failure's log shown at most: the executor keeps the last ones before the failure. */
export const LOG_EXCERPT_LINES = 40;

/** `2026-11-23 09:12:03`, for tables whose header says UTC. */
const clock = (date: Date | null) => reportTime(date).replace(' UTC', '');

/** A section's heading; `headlineLevel` lets the document keep it off the foot of a page (`pageBreakBefore`). */
export const heading = (text: string): Content => ({ text, style: 'h2', headlineLevel: 1 });

/** A borderless two-column table of labels and values. */
export function facts(rows: Array<[string, Content]>): Content {
  return {
    table: { widths: [130, '*'], body: rows.map(([label, value]): TableCell[] => [{ text: label, style: 'label' }, value]) },
    layout: { hLineWidth: () => 0, vLineWidth: () => 0, paddingLeft: () => 0, paddingTop: () => 2, paddingBottom: () => 2 },
  };
}

/** A table with a shaded header row and thin rules between rows. */
function grid(widths: Array<number | string>, header: string[], rows: TableCell[][]): Content {
  return {
    style: 'cell',
    table: { headerRows: 1, widths, dontBreakRows: true, body: [header.map((text): TableCell => ({ text, style: 'th' })), ...rows] },
    layout: {
      hLineWidth: (index: number) => (index === 0 ? 0 : 0.5),
      vLineWidth: () => 0,
      hLineColor: () => RULE,
      fillColor: (row: number) => (row === 0 ? '#f3f4f6' : null),
      paddingLeft: () => 3,
      paddingRight: () => 3,
      paddingTop: () => 4,
      paddingBottom: () => 4,
    },
  };
}

export function summary(input: ReportInput): Content[] {
  const { run, history, generatedAt } = input;
  const job = run.job;
  const kind =
    run.kind === 'resume' ? `Resume of run ${run.resumedFrom}: its finished steps reused` : run.kind === 'run-anyway' ? `Run anyway, past the failed pre-flight of run ${run.resumedFrom}` : 'New run from the recipe';
  const counts = new Map<string, number>();
  for (const step of job.plan) {
    const status = step.id === input.self ? 'running' : (job.steps[step.id]?.status ?? 'pending');
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  const duration = history.startedAt ? reportDuration((history.endedAt ?? generatedAt).getTime() - history.startedAt.getTime()) : '-';
  const rows: Array<[string, Content]> = [
    ['Status', { text: statusWords(job.status), bold: true, color: statusColor(job.status) }],
    ['Run', `${run.number}: ${kind}`],
    ['Requested by', `${who(input, history.requestedBy)}, ${reportTime(history.requestedAt)}`],
    ['Started', reportTime(history.startedAt)],
    ['Ended', history.endedAt ? reportTime(history.endedAt) : 'not yet'],
    ['Duration', history.endedAt ? duration : `${duration} so far`],
    ['Steps', `${job.plan.length} planned: ${[...counts].map(([status, count]) => `${count} ${status}`).join(', ')}`],
    ['Working database', pdfText(input.migration.workingDatabase)],
  ];
  if (job.error) rows.push(['Error', { text: withEmails(input, job.error), color: '#b91c1c' }]);
  return [heading('Summary'), facts(rows)];
}

export function decisions(input: ReportInput): Content[] {
  const { decisions: made } = input.history;
  if (made.length === 0) return [heading('Overrides and decisions'), { text: 'None: the run went by its recipe, with no override, gate decision, pause or resume.', style: 'muted' }];
  const what = { 'run-anyway': 'Override', gate: 'Gate', pause: 'Pause', resume: 'Resume', cancel: 'Cancel' } as const;
  const rows = made.map((decision): TableCell[] => [
    clock(decision.at),
    who(input, decision.actor),
    { text: [{ text: `${what[decision.what]}${decision.step ? ` ${decision.step}` : ''}${decision.fromRun ? ` (run ${decision.fromRun})` : ''}: `, bold: true }, withEmails(input, decision.detail)] },
  ]);
  return [heading('Overrides and decisions'), grid([92, 130, '*'], ['When (UTC)', 'Who', 'What'], rows)];
}

function stepStatus(input: ReportInput, id: string, state: StepState | undefined): Content {
  if (id === input.self) return { stack: [{ text: 'running', color: '#b45309' }, { text: '(this report)', style: 'small', color: MUTED }] };
  if (!state) return 'unknown';
  const status = state.status === 'pending' && state.interrupted === 'cancel' ? 'cancelled' : state.status === 'reused' ? `reused from run ${input.run.resumedFrom}` : state.status;
  const color = state.status === 'failed' ? '#b91c1c' : state.status === 'completed' || state.status === 'reused' ? '#15803d' : state.status === 'skipped' ? MUTED : '#b45309';
  return { text: status, color };
}

export function steps(input: ReportInput): Content[] {
  const { job } = input.run;
  const rows = job.plan.map((step, index): TableCell[] => {
    const state = job.steps[step.id];
    const times = input.history.steps[step.id];
    const title = typeof step.params['title'] === 'string' && step.params['title'] !== step.id ? pdfText(step.params['title']) : '';
    return [
      { text: String(index + 1), color: MUTED },
      { stack: [{ text: step.id, bold: true }, ...(title ? [{ text: title, style: 'small', color: MUTED }] : [])] },
      step.type,
      stepStatus(input, step.id, state),
      { text: String(state?.attempts ?? 0), alignment: 'right' },
      clock(times?.startedAt ?? null),
      { text: reportDuration(times?.durationMs ?? null), alignment: 'right' },
    ];
  });
  return [heading('Steps'), { text: 'Times are UTC. Attempts count the starts of a step in this run; reused and skipped steps did not run in it.', style: 'muted', margin: [0, 0, 0, 6] }, grid([14, '*', 76, 74, 40, 86, 48], ['#', 'Step', 'Kind', 'Status', 'Attempts', 'Started (UTC)', 'Duration'], rows)];
}

export function warnings(input: ReportInput): Content[] {
  const found = reportedWarnings(input.run);
  if (found.length === 0) return [heading('Warnings'), { text: 'No step reported a warning.', style: 'muted' }];
  return [
    heading('Warnings'),
    ...found.map(({ step, kind, reused, warnings: list }): Content => ({
      stack: [{ text: `${step} (${kind})${reused ? `, reported by run ${input.run.resumedFrom}` : ''}`, bold: true }, { ul: list.map((warning) => pdfText(warning)), margin: [0, 2, 0, 0] }],
      margin: [0, 0, 0, 8],
    })),
  ];
}

/** The readiness report (readinessOf.ts): per hop its counts, the modules that block or warn with why, and how many are ready. */
export function readiness(input: ReportInput): Content[] {
  const { hops, note } = input.readiness;
  if (hops.length === 0) return [heading('Readiness'), { text: pdfText(`No readiness report: ${note}.`), style: 'muted' }];
  return [
    heading('Readiness'),
    { text: pdfText(`${note.charAt(0).toUpperCase()}${note.slice(1)}.`), style: 'muted', margin: [0, 0, 0, 6] },
    ...hops.flatMap((hop): Content[] => {
      const flagged = hop.modules.filter((module) => module.verdict !== 'ok');
      const title = { text: `${hop.origin} -> ${hop.destination}: ${hop.counts.ok} ready, ${hop.counts.warning} with a warning, ${hop.counts.blocks} blocking`, bold: true, margin: [0, 4, 0, 4] };
      if (flagged.length === 0) return [title, { text: `All ${hop.modules.length} installed modules are ready.`, style: 'muted' }];
      const row = (module: (typeof flagged)[number]): Content[] => [
        { text: pdfText(module.module), style: 'cell' },
        { text: pdfText(`${module.found}${module.where && module.found !== 'standard' ? ` (${module.where})` : ''}`), style: 'cell' },
        { text: pdfText(module.openupgrade ?? '-'), style: 'cell' },
        { text: pdfText(`${module.verdict}: ${module.note}`), style: 'cell' },
      ];
      return [
        title,
        { table: { headerRows: 1, widths: [90, 90, 60, '*'], body: [['Module', 'Found', 'OpenUpgrade', 'Verdict'].map((text) => ({ text, style: 'th' })), ...flagged.map(row)] }, layout: 'lightHorizontalLines' },
        { text: `The other ${hop.modules.length - flagged.length} installed modules are ready.`, style: 'muted', margin: [0, 4, 0, 0] },
      ];
    }),
  ];
}

/** A block of log lines in a shaded box; long lines wrap inside it. */
function logBox(lines: readonly string[]): Content {
  const shown = lines.slice(-LOG_EXCERPT_LINES).map((line) => pdfText(line));
  return {
    table: { widths: ['*'], body: [[{ text: shown.join('\n'), style: 'log' }]] },
    layout: { hLineWidth: () => 0, vLineWidth: () => 0, fillColor: () => '#f3f4f6', paddingLeft: () => 6, paddingRight: () => 6, paddingTop: () => 5, paddingBottom: () => 5 },
  };
}

export function failures(input: ReportInput): Content[] {
  const recorded: Failure[] = [...input.history.failures];
  // A rejected gate fails its step without a StepFailed event: list it from the state.
  for (const step of input.run.job.plan) {
    const state = input.run.job.steps[step.id];
    if (state?.status === 'failed' && !recorded.some((failure) => failure.step === step.id)) {
      recorded.push({ step: step.id, attempt: state.attempts, at: input.history.steps[step.id]?.endedAt ?? input.generatedAt, error: state.error, retryable: state.retryable, logTail: [] });
    }
  }
  if (recorded.length === 0) return [heading('Failures'), { text: 'No step failed in this run.', style: 'muted' }];
  return [
    heading('Failures'),
    ...recorded.map((failure): Content => {
      const lines = failure.logTail.length > 0 ? failure.logTail : input.logTail;
      const source = failure.logTail.length > 0 ? 'The run log when it failed:' : 'The last lines of the run log:';
      return {
        stack: [
          { text: [{ text: failure.step, bold: true }, { text: `  attempt ${failure.attempt}, ${reportTime(failure.at)}${failure.retryable ? ', retryable' : ''}`, color: MUTED }] },
          { text: withEmails(input, failure.error), color: '#b91c1c', margin: [0, 2, 0, 4] },
          ...(lines.length > 0 ? [{ text: source, style: 'small', color: MUTED, margin: [0, 0, 0, 2] } as Content, logBox(lines)] : [{ text: 'No log lines were recorded for it.', style: 'muted' } as Content]),
        ],
        margin: [0, 0, 0, 10],
      };
    }),
  ];
}

export function artifacts(input: ReportInput): Content[] {
  const files = reportedArtifacts(input.run);
  if (files.length === 0) return [heading('Artifacts'), { text: 'This run stored no files yet.', style: 'muted' }];
  const rows = files.map((file): TableCell[] => [
    { text: String(file.id), color: MUTED },
    { stack: [{ text: pdfText(file.name), bold: true }, { text: 'sha256', style: 'small', color: MUTED, margin: [0, 2, 0, 0] }, { text: file.sha256, style: 'hash', fontSize: 7 }] },
    file.kind,
    { stack: reportBytes(file.bytes).split(' (').map((part, index) => (index === 0 ? { text: part } : { text: part.replace(/\)$/, ''), style: 'small', color: MUTED })), alignment: 'right' },
  ]);
  return [
    heading('Artifacts'),
    grid([40, '*', 48, 76], ['ID', 'File and checksum', 'Kind', 'Size'], rows),
    { text: `Download with GET /api/v1/migrations/${input.migration.slug}/artifacts/{id}; compare the file's sha256 with the one above.`, style: 'muted', margin: [0, 4, 0, 0] },
  ];
}

export function recipe(input: ReportInput): Content[] {
  const { key, sha256 } = input.migration.recipe;
  // Kept on one page: a recipe key on one page and its hash on the next reads as two things.
  return [
    {
      unbreakable: true,
      stack: [
        heading('Recipe'),
        facts([
      ['Recipe key', pdfText(key)],
      ['Recipe sha256', { text: sha256, style: 'hash' }],
      ['Steps planned', String(input.run.job.plan.length)],
          ['Generated', `${reportTime(input.generatedAt)} by ${input.generatedBy === 'system' ? "the run's report step" : who(input, input.generatedBy)}`],
        ]),
      ],
    },
  ];
}
