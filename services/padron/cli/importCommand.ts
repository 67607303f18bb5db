import { loadConfigOrExit, orExit } from '#shared/config/config.ts';
import { createLogger } from '#shared/log.ts';
import { openInfrastructureOrExit } from '#shared/platform/infrastructure.ts';
import { importPadronFile, type ImportOutcome } from '../import/importPadron.ts';
import { PadronInputError } from '../import/padronInputError.ts';
import { readSaltaRatesFile } from '../import/saltaRatesFile.ts';
import type { RejectSummary } from '../padron.ts';
import { loadPadronSettings } from '../padron.settings.ts';
import { PadronFormatError } from '../parse/padronFormatError.ts';
import { STATE_NAMES } from '../parse/padronRecord.ts';
import { parseDate, parseFlags, parseRegime, parseState, USAGE } from './flags.ts';

const SALTA_HINT = 'set FORJA_PADRON_SALTA_RATES to a YAML or JSON file mapping CM/JU × RA/RB/SR to P and R rates (see README, Padrón)';

/** `npm run padron -- import …`: exit 0 when loaded or already loaded, 2 when the input is refused, 1 on failure. */
export async function runImportCommand(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(argv, ['state', 'file', 'regime', 'date'], ['json']);
  const stateFlag = flags.get('state');
  const file = flags.get('file');
  if (stateFlag === undefined || file === undefined) throw new PadronInputError(`import needs --state and --file\n${USAGE}`);
  const state = parseState(stateFlag);
  const regimeFlag = flags.get('regime');
  const regime = regimeFlag === undefined ? undefined : parseRegime(regimeFlag);
  const dateFlag = flags.get('date');
  const date = dateFlag === undefined ? undefined : parseDate(dateFlag);
  const settings = orExit(() => loadPadronSettings());
  const saltaRates = state === 'A' && settings.FORJA_PADRON_SALTA_RATES ? await readSaltaRatesFile(settings.FORJA_PADRON_SALTA_RATES) : undefined;

  const config = loadConfigOrExit();
  const infra = await openInfrastructureOrExit(config, createLogger(config, 'padron'), 'padron import');
  try {
    const outcome = await importPadronFile({ pool: infra.pool, store: infra.store, databaseUrl: infra.databaseUrl }, { state, path: file, regime, saltaRates, date }).catch((error: unknown) => {
      if (error instanceof PadronFormatError && state === 'A' && saltaRates === undefined && /rate table/.test(error.message)) {
        throw new PadronFormatError(`${error.message}: ${SALTA_HINT}`);
      }
      throw error;
    });
    const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
    process.stdout.write(flags.has('json') ? `${JSON.stringify({ ...outcome, peakRssMb })}\n` : describeOutcome(outcome, peakRssMb));
    return 0;
  } finally {
    await infra.close();
  }
}

function describeOutcome(outcome: ImportOutcome, peakRssMb: number): string {
  if (outcome.status === 'unchanged') return `unchanged: ${outcome.message}\n`;
  const { load } = outcome;
  const seconds = load.durationMs / 1000;
  const lines = [
    `loaded ${STATE_NAMES[load.state]} (${load.state}) from ${load.fileName}${load.entries.length === 1 && load.entries[0] === load.fileName ? '' : ` (${load.entries.join(', ')})`} as load ${load.loadId}: ${int(load.rowsLoaded)} rates (${load.regimes.join(', ')}), valid ${load.validFrom ?? '?'} to ${load.validTo ?? '?'}, layout ${load.layout}`,
    `  published ${load.publishedAt}; removed (marca alta B): ${int(load.rowsRemoved)}; rejected: ${int(load.rowsRejected)}`,
    ...load.rejects.map(describeLines),
    ...(load.rowsWarned ? [`  kept with a warning: ${int(load.rowsWarned)}`, ...(load.warnings ?? []).map(describeLines)] : []),
    `  ${seconds.toFixed(1)} s, ${int(load.rowsLoaded / Math.max(seconds, 0.001))} rates/s, peak RSS ${peakRssMb} MB`,
  ];
  for (const skipped of outcome.skipped) lines.push(`  skipped: ${skipped}`);
  if (outcome.expiredLoads.length > 0) lines.push(`  dropped loads past retention: ${outcome.expiredLoads.join(', ')}`);
  if (outcome.expiredLoads.includes(load.loadId)) {
    lines.push(`  this load is itself past retention (valid to ${load.validTo ?? '?'}, and newer loads serve its regimes), so it was dropped again: only its record remains`);
  }
  if (outcome.abandonedLoads.length > 0) lines.push(`  marked interrupted imports as failed: ${outcome.abandonedLoads.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function describeLines(summary: RejectSummary): string {
  const { reason, count, firstLines } = summary;
  return `    ${reason}: ${int(count)} (line${firstLines.length > 1 ? 's' : ''} ${firstLines.join(', ')}${count > firstLines.length ? ', …' : ''})`;
}

const int = (value: number) => Math.round(value).toLocaleString('en-US');
