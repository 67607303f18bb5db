import { done, fail } from '#shared/workflow/stepOutcome.ts';
import { isStatementRefused } from '../../database/databaseSessions.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { stringParam } from './stepParams.ts';

type Expectation = { rows: number } | { equals: string | number } | { matches: string };

/** How many rows a message shows, and how long it may get. */
const SHOWN_ROWS = 5;
const MAX_SHOWN = 600;

/**
 * Runs `params.sql` on the working database, as one statement in a read-only transaction (see
 * readOnlyRows: a check never writes, whatever its text), and compares what it
 * found with `params.expect`: `{rows: n}` the number of rows, `{equals: v}` the first column of
 * the first row as text, `{matches: re}` the same against a regular expression. A mismatch fails
 * the step (severity `error`, not retryable: the database will not change by itself) or is listed
 * in the facts' `warnings` (severity `warning`). SQL that Postgres refuses (several statements, a
 * write, a syntax error) fails the step without a retry, whatever the severity, saying why.
 */
export const check: MigrationStep = async (context) => {
  const { step } = context;
  const sql = stringParam(step, 'sql');
  const expectation = expectationOf(step.params['expect']);
  const severity = step.params['severity'] === 'warning' ? 'warning' : 'error';
  let rows: Record<string, unknown>[];
  try {
    rows = await context.databases.query(context.migration.workingDatabase, sql, undefined, { readOnly: true });
  } catch (error) {
    if (!isStatementRefused(error)) throw error;
    const message = `check ${step.id}: its sql was refused (${error.message}): a check is one SQL statement that only reads`;
    await context.log(message);
    return fail(message, { retryable: false });
  }
  const mismatch = judge(rows, expectation);
  if (mismatch === null) {
    await context.log(`check ${step.id}: as expected (${describeExpectation(expectation)})`);
    return done({ rows: rows.length });
  }
  const message = `check ${step.id}: expected ${describeExpectation(expectation)}, found ${mismatch}`;
  await context.log(message);
  return severity === 'warning' ? done({ rows: rows.length, warnings: [message] }) : fail(message, { retryable: false });
};

function expectationOf(value: unknown): Expectation {
  if (value === undefined) return { rows: 0 };
  const object = value as Record<string, unknown>;
  if (typeof object['rows'] === 'number') return { rows: object['rows'] };
  if (typeof object['equals'] === 'string' || typeof object['equals'] === 'number') return { equals: object['equals'] };
  if (typeof object['matches'] === 'string') return { matches: object['matches'] };
  throw new Error(`not a check expectation: ${JSON.stringify(value)}`);
}

const describeExpectation = (expectation: Expectation): string =>
  'rows' in expectation ? `${expectation.rows} row(s)` : 'equals' in expectation ? `the value ${JSON.stringify(String(expectation.equals))}` : `a value matching /${expectation.matches}/`;

/** What was found when it is not what was expected, or null when it is. */
function judge(rows: Record<string, unknown>[], expectation: Expectation): string | null {
  if ('rows' in expectation) return rows.length === expectation.rows ? null : `${rows.length} row(s)${rows.length > 0 ? `: ${shown(rows)}` : ''}`;
  const first = rows[0];
  if (first === undefined) return 'no rows';
  const value = cellText(Object.values(first)[0]);
  const ok = value !== null && ('equals' in expectation ? value === String(expectation.equals) : new RegExp(expectation.matches).test(value));
  return ok ? null : `${value === null ? 'NULL' : JSON.stringify(value)}${rows.length > 1 ? ` (first of ${rows.length} rows)` : ''}`;
}

/** A value as the SQL client would print it; NULL stays null. */
function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function shown(rows: Record<string, unknown>[]): string {
  const text = rows
    .slice(0, SHOWN_ROWS)
    .map((row) => JSON.stringify(row))
    .join('; ');
  const more = rows.length > SHOWN_ROWS ? ` (and ${rows.length - SHOWN_ROWS} more)` : '';
  return `${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text}${more}`;
}
