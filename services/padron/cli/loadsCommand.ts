import { loadConfigOrExit } from '#shared/config/config.ts';
import { createLogger } from '#shared/log.ts';
import { openInfrastructureOrExit } from '#shared/platform/infrastructure.ts';
import { listRecordedLoads, type RecordedLoad } from '#projections/padronLoads/padronLoadsQuery.ts';
import { readModelOf } from '#projections/readModel.ts';
import { parseFlags, parseState } from './flags.ts';

/** `npm run padron -- loads [--state X] [--json]`: the padron_loads read model, newest first. */
export async function runLoadsCommand(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(argv, ['state'], ['json']);
  const stateFlag = flags.get('state');
  const state = stateFlag === undefined ? undefined : parseState(stateFlag);
  const config = loadConfigOrExit();
  const infra = await openInfrastructureOrExit(config, createLogger(config, 'padron'), 'padron loads');
  try {
    const { loads, lag } = await listRecordedLoads(readModelOf(infra.db), await infra.store.headPosition(), state);
    if (flags.has('json')) {
      process.stdout.write(`${JSON.stringify({ loads, lag })}\n`);
      return 0;
    }
    process.stdout.write(loads.length === 0 ? 'no padrón loads recorded\n' : renderTable(loads));
    if (lag === null || lag > 0) {
      const behind = lag === null ? 'has not run yet' : `is ${lag} events behind the event store`;
      process.stdout.write(`note: the padron_loads read model ${behind}; run the projector (npm run projector, or npm start) to see the newest loads\n`);
    }
    return 0;
  } finally {
    await infra.close();
  }
}

function renderTable(loads: RecordedLoad[]): string {
  const header = ['load', 'state', 'regimes', 'valid from', 'valid to', 'rates', 'removed', 'rejected', 'seconds', 'published', 'file'];
  const rows = loads.map((load) => [
    String(load.load_id),
    load.state,
    load.regimes,
    load.valid_from ?? '-',
    load.valid_to ?? '-',
    int(load.rows_loaded),
    int(load.rows_removed),
    int(load.rows_rejected),
    (load.duration_ms / 1000).toFixed(1),
    load.published_at.toISOString().slice(0, 19).replace('T', ' '),
    load.file_name,
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => (row[column] ?? '').length)));
  const numeric = new Set([0, 5, 6, 7, 8]);
  const format = (row: string[]) => row.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join('  ').trimEnd();
  return `${[format(header), ...rows.map(format)].join('\n')}\n`;
}

const int = (value: number) => value.toLocaleString('en-US');
