import { checkDigitVerifies } from '../parse/cuit.ts';
import type { LineBatch } from '../parse/lines.ts';
import type { LineParser } from '../parse/padronRecord.ts';
import type { CopyRowWriter } from './copyRows.ts';
import type { RejectTally } from './rejectTally.ts';

/** The load report's warning for a row kept although its CUIT's check digit does not verify. */
export const CHECK_DIGIT_WARNING = 'CUIT check digit does not verify: kept';

/** What the parse loop counted besides the rows it wrote. */
export interface FeedCounts {
  lines: number;
  /** Rates of removed subjects (marca alta `B`): not current, so not published. */
  removed: number;
}

/** Where the parse loop reports lines: refused ones, and kept ones worth a look. */
export interface FeedReport {
  rejects: RejectTally;
  warnings: RejectTally;
}

/**
 * The hot loop of an import: every line through the parser, every current rate into the COPY,
 * every refusal into the tally. A line whose CUIT's check digit does not verify is kept and
 * counted as a warning: agencies publish such numbers, and an agent looks up the number printed on
 * the invoice. Synchronous per batch; it awaits only when the COPY asks it to (backpressure), so a
 * batch of thousands of lines costs one await at most. `reasonPrefix` names the file when an
 * archive holds several, since line numbers are per file.
 */
export async function feedRecords(batches: AsyncIterable<LineBatch>, parser: LineParser, writer: CopyRowWriter, report: FeedReport, reasonPrefix = ''): Promise<FeedCounts> {
  const counts: FeedCounts = { lines: 0, removed: 0 };
  const { rejects, warnings } = report;
  for await (const { lines, firstLineNumber } of batches) {
    let mustFlush = false;
    for (let i = 0; i < lines.length; i++) {
      const lineNumber = firstLineNumber + i;
      const parsed = parser.parseLine(lines[i] ?? '', lineNumber);
      if (parsed === null) continue;
      if (!Array.isArray(parsed)) {
        rejects.add(reasonPrefix + parsed.reason, parsed.line);
        continue;
      }
      let kept = false;
      for (const record of parsed) {
        if (record.removed) counts.removed++;
        else {
          kept = true;
          mustFlush = writer.add(record, lineNumber) || mustFlush;
        }
      }
      // Every record of a line has the line's CUIT.
      const first = parsed[0];
      if (kept && first !== undefined && !checkDigitVerifies(first.cuit)) warnings.add(reasonPrefix + CHECK_DIGIT_WARNING, lineNumber);
    }
    counts.lines += lines.length;
    if (mustFlush) await writer.flush();
  }
  return counts;
}
