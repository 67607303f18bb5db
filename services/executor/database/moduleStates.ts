import { openSession, type SessionOptions } from './openSession.ts';

/** One row of the ERP's module registry (`ir_module_module`): `installed`, `uninstalled`, `to install`… */
export interface ModuleState {
  name: string;
  state: string;
}

/** PostgreSQL's "undefined_table": a database the ERP never initialized has no module registry. */
const UNDEFINED_TABLE = '42P01';

/**
 * The registry rows of `names` in the database at `databaseUrl`; a name the ERP does not know has
 * no row. What the ERP's exit code does not say: it exits 0 after ignoring a module it cannot find.
 */
export async function readModuleStates(databaseUrl: string, names: readonly string[], session: SessionOptions = {}): Promise<ModuleState[]> {
  const client = await openSession(databaseUrl, session);
  try {
    const { rows } = await client.query<ModuleState>('select name, state from ir_module_module where name = any($1::varchar[]) order by name', [names]);
    return rows;
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return [];
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
