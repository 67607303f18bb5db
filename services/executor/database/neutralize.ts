import type pg from 'pg';
import { type Column, type MailCatcherAddress, type Schema, type Step, STEPS, has } from './neutralizationSteps.ts';

/** One thing neutralization turned off, for the `db` log and the instance page. */
export interface Neutralized {
  what: string;
  /** Rows changed by this run: 0 when an earlier run had already done it. */
  rows: number;
}

/**
 * Neutralizes the database `client` is connected to, in one transaction, and says what it did.
 * Safe to re-run (each statement changes only what is not yet neutral); a database without any
 * of these tables is left alone and gives an empty list. `onSkip` hears the steps that did not apply.
 * `mailCatcher`, when Forja runs one, receives the copy's outgoing mail (else the dead host `invalid`).
 * `forjaOwnOnly`: only what is Forja's own (after the ERP's `neutralize` did the rest).
 */
export async function neutralizeDatabase(
  client: pg.Client,
  onSkip: (what: string, missing: string[]) => void = () => undefined,
  mailCatcher?: MailCatcherAddress,
  forjaOwnOnly = false,
): Promise<Neutralized[]> {
  const done: Neutralized[] = [];
  const steps: Step[] = forjaOwnOnly ? STEPS.filter((step) => step.forjaOwn) : STEPS;
  await client.query('begin');
  try {
    const schema = await readSchema(client);
    for (const step of steps) {
      const missing = step.needs.filter((need) => !has(schema, need));
      if (missing.length > 0) {
        onSkip(step.what, missing);
        continue;
      }
      const statements = step.statements(schema, mailCatcher);
      if (statements.length === 0) {
        onSkip(step.what, []);
        continue;
      }
      let rows = 0;
      for (const { sql, params } of statements) rows += (await client.query(sql, params)).rowCount ?? 0;
      done.push({ what: step.what, rows });
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
  return done;
}

/** The columns of the tables the steps name, as unqualified statements see them (search_path). */
async function readSchema(client: pg.Client): Promise<Schema> {
  const tables = [...new Set(STEPS.flatMap((step) => step.needs.map((need) => need.split('.')[0])).concat('ir_model_data', 'ir_mail_server'))];
  const { rows } = await client.query<{ table_name: string; column_name: string; not_null: boolean; has_default: boolean }>(
    `select c.relname as table_name, a.attname as column_name, a.attnotnull as not_null, (a.atthasdef or a.attidentity <> '') as has_default
       from pg_class c join pg_attribute a on a.attrelid = c.oid
      where c.relkind in ('r', 'p') and pg_table_is_visible(c.oid) and a.attnum > 0 and not a.attisdropped and c.relname = any($1)`,
    [tables],
  );
  const schema: Schema = new Map();
  for (const row of rows) {
    const columns = schema.get(row.table_name) ?? new Map<string, Column>();
    columns.set(row.column_name, { notNull: row.not_null, hasDefault: row.has_default });
    schema.set(row.table_name, columns);
  }
  return schema;
}
