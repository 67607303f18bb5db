import { STATE_NAMES, type RegimeCode, type StateCode } from '../parse/padronRecord.ts';
import { PadronInputError } from '../import/padronInputError.ts';
import { isIsoDate } from '../time.ts';

export const USAGE = `usage: npm run padron -- <command>
  import --state <C|B|T|E|S|A|X> --file <path> [--regime P|R] [--date YYYY-MM-DD] [--json]
         import a padrón file (plain text, ZIP or RAR) for one jurisdiction; --date is the
         first day its rates apply, for a file that does not say (Salta's without '… al DD-MM-YYYY')
  loads  [--state <code>] [--json]   list recorded loads (the padron-<state> event streams)
  serve                              run the lookup service (FORJA_PADRON_PORT, default 8082)`;

/** Flags of one command: `--name value`, or `--name` alone for the boolean ones. */
export function parseFlags(argv: readonly string[], valued: readonly string[], booleans: readonly string[] = []): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0] ?? '' : '';
    const inline = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined;
    if (booleans.includes(name) && inline === undefined) flags.set(name, 'true');
    else if (valued.includes(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '') throw new PadronInputError(`--${name} needs a value\n${USAGE}`);
      flags.set(name, value);
    } else throw new PadronInputError(`unknown argument ${arg}\n${USAGE}`);
  }
  return flags;
}

/** A jurisdiction code, or a refusal listing the known ones. */
export function parseState(value: string): StateCode {
  const code = value.trim().toUpperCase();
  if (code in STATE_NAMES) return code as StateCode;
  const known = Object.entries(STATE_NAMES).map(([known, name]) => `${known} (${name})`).join(', ');
  throw new PadronInputError(`unknown state ${JSON.stringify(value)}; one of ${known}`);
}

export function parseRegime(value: string): RegimeCode {
  const code = value.trim().toUpperCase();
  if (code === 'P' || code === 'R') return code;
  throw new PadronInputError(`unknown regime ${JSON.stringify(value)}; P (perception) or R (withholding)`);
}

/** `--date`: a real calendar date written YYYY-MM-DD. */
export function parseDate(value: string): string {
  const date = value.trim();
  if (isIsoDate(date)) return date;
  throw new PadronInputError(`--date must be a date written YYYY-MM-DD, the first day the file's rates apply (got ${JSON.stringify(value)})`);
}
