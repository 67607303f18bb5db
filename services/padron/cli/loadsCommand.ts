import { loadConfigOrExit } from '#shared/config/config.ts';
import { createLogger } from '#shared/log.ts';
import { openInfrastructureOrExit } from '#shared/platform/infrastructure.ts';
import { parseFlags, parseState } from './flags.ts';
import { listRecordedLoads, type RecordedLoad } from './recordedLoads.ts';

/** `npm run padron -- loads [--state X] [--json]`: the recorded loads, newest first. */
export async function runLoadsCommand(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(argv, ['state'], ['json']);
  const stateFlag = flags.get('state');
  const state = stateFlag === undefined ? undefined : parseState(stateFlag);
  const config = loadConfigOrExit();
  const infra = await openInfrastructureOrExit(config, createLogger(config, 'padron'), 'padron loads');
  try {
    const loads = await listRecordedLoads(infra.store, infra.pool, state);
    if (flags.has('json')) process.stdout.write(`${JSON.stringify({ loads })}\n`);
    else process.stdout.write(loads.length === 0 ? 'no padrón loads recorded\n' : renderTable(loads));
    return 0;
  } finally {
    await infra.close();
  }
}

function renderTable(loads: RecordedLoad[]): string {
  const header = ['load', 'state', 'regimes', 'valid from', 'valid to', 'rates', 'removed', 'rejected', 'warned', 'seconds', 'published', 'status', 'file'];
  const rows = loads.map((load) => [
    String(load.load_id),
    load.state,
    load.regimes,
    load.valid_from ?? '-',
    load.valid_to ?? '-',
    int(load.rows_loaded),
    int(load.rows_removed),
    int(load.rows_rejected),
    int(load.rows_warned),
    (load.duration_ms / 1000).toFixed(1),
    load.published_at.slice(0, 19).replace('T', ' '),
    load.status,
    load.file_name,
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => (row[column] ?? '').length)));
  const numeric = new Set([0, 5, 6, 7, 8, 9]);
  const format = (row: string[]) => row.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join('  ').trimEnd();
  const note = loads.some((load) => load.rows_warned > 0) ? 'warned: rows kept although their CUIT check digit does not verify\n' : '';
  return `${[format(header), ...rows.map(format)].join('\n')}\n${note}`;
}

const int = (value: number) => value.toLocaleString('en-US');
