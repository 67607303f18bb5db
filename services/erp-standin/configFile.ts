import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** A value of the `[options]` section: a string, or a boolean where the file said True/False. */
export type RcValue = string | boolean;

/**
 * Which configuration file the ERP reads, as `odoo/tools/config.py` (`_parse_config`) picks it:
 * `-c/--config`, else ODOO_RC (or the older OPENERP_SERVER), else `~/.odoorc` (HOME first, as Python's expanduser).
 */
export function rcFilePath(config: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(config ?? env.ODOO_RC ?? env.OPENERP_SERVER ?? join(env.HOME ?? homedir(), '.odoorc'));
}

/**
 * The `[options]` section of the configuration file, read as `odoo/tools/config.py` (`load`) reads
 * it with Python's RawConfigParser. Strict where the real one is lax, because a test must fail when
 * Forja writes a file the real ERP would misread:
 * - a file that is missing or cannot be read (wrong owner, mode 0600 for another account) is
 *   silently no file at all: every option keeps its default, the database manager stays open;
 * - names are lower-cased, `=` or `:` separates name and value, `#`/`;` start a comment only at
 *   the start of a line (`list_db = False ; no` is the string `False ; no`, which is true);
 * - only `True`/`true` and `False`/`false` become booleans; other strings stay strings
 *   (Python then takes any non-empty one as true: `list_db = 0` leaves the manager open).
 */
export function readRcFile(path: string): Map<string, RcValue> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return new Map();
  }
  const options = new Map<string, RcValue>();
  let section: string | undefined;
  let last: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*$/.test(raw) || /^\s*[#;]/.test(raw)) continue;
    const header = /^\[([^\]]+)\]/.exec(raw);
    if (header) {
      section = header[1];
      last = undefined;
      continue;
    }
    if (/^\s/.test(raw) && last !== undefined) {
      // A continuation line, as RawConfigParser joins them.
      if (section === 'options') options.set(last, `${String(options.get(last))}\n${raw.trim()}`);
      continue;
    }
    const pair = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(raw);
    if (!pair) continue;
    last = pair[1]!.trim().toLowerCase();
    if (section === 'options') options.set(last, pair[2]!.trim());
  }
  for (const [name, value] of options) {
    if (value === 'True' || value === 'true') options.set(name, true);
    if (value === 'False' || value === 'false') options.set(name, false);
  }
  return options;
}

/** Python's truth of a value read from the file: an empty string is false, any other string true. */
export const truthy = (value: RcValue): boolean => (typeof value === 'boolean' ? value : value !== '');
