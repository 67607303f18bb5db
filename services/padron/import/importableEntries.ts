import { openPadronEntries, type PadronTextEntry } from '../archive/openPadronEntries.ts';
import { DETECTION_LINES, openParser, type OpenedParser } from '../parse/detect.ts';
import { peekLines, readLineBatches, type LineBatch } from '../parse/lines.ts';
import { PadronFormatError } from '../parse/padronFormatError.ts';
import type { RegimeCode, StateCode } from '../parse/padronRecord.ts';

/** A text file of the upload whose layout is the jurisdiction's, ready to stream. */
export interface ImportableEntry {
  name: string;
  parser: OpenedParser;
  /** Its lines from the first, the detection lines included. */
  batches: AsyncGenerator<LineBatch>;
}

export interface EntryOptions {
  state: StateCode;
  regime?: RegimeCode;
  saltaRates?: unknown;
  date?: string;
}

/**
 * The text files of an upload (the file itself, or the entries of its ZIP or RAR) that are the
 * jurisdiction's padrón, one at a time. An entry in another layout is skipped and remembered (a
 * Tucumán ZIP also carries its coefficient file); when no entry fits, the refusal says why for
 * each. The caller must use up or `return()` an entry's batches before asking for the next.
 */
export class ImportableEntries {
  readonly imported: string[] = [];
  readonly skipped: string[] = [];
  private readonly entries: AsyncGenerator<PadronTextEntry>;

  constructor(
    path: string,
    private readonly options: EntryOptions,
  ) {
    this.entries = openPadronEntries(path);
  }

  async next(): Promise<ImportableEntry | undefined> {
    for (;;) {
      const step = await this.entries.next();
      if (step.done === true) {
        if (this.imported.length === 0) throw new PadronFormatError(this.skipped.length === 1 ? (this.skipped[0] ?? '') : `no file fits: ${this.skipped.join('; ')}`);
        return undefined;
      }
      const entry = step.value;
      const { firstLines, batches } = await peekLines(readLineBatches(entry.stream), DETECTION_LINES);
      try {
        const parser = openParser({ state: this.options.state, fileName: entry.name, regime: this.options.regime, firstLines, saltaRates: this.options.saltaRates, date: this.options.date });
        this.imported.push(entry.name);
        return { name: entry.name, parser, batches };
      } catch (error) {
        await batches.return(undefined);
        if (!(error instanceof PadronFormatError)) throw error;
        this.skipped.push(error.message);
      }
    }
  }

  /** Closes the archive (and the current entry) when the import stops early. */
  async close(): Promise<void> {
    await this.entries.return(undefined);
  }
}
