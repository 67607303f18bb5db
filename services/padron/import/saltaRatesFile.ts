import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { PadronInputError } from './padronInputError.ts';

/**
 * Salta's rate table from the file FORJA_PADRON_SALTA_RATES names, as data (YAML, or JSON, which
 * YAML reads too). The parser validates its content; this only reads it and says clearly when the
 * file is missing or is not YAML.
 */
export async function readSaltaRatesFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new PadronInputError(`FORJA_PADRON_SALTA_RATES: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parse(text) as unknown;
  } catch (error) {
    throw new PadronInputError(`FORJA_PADRON_SALTA_RATES: ${path} is neither YAML nor JSON: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
}
