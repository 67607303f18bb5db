import type { LineBatch } from '../parse/lines.ts';
import type { LineParser } from '../parse/padronRecord.ts';
import type { CopyRowWriter } from './copyRows.ts';
import type { RejectTally } from './rejectTally.ts';

/** What the parse loop counted besides the rows it wrote. */
export interface FeedCounts {
  lines: number;
  /** Rates of removed subjects (marca alta `B`): not current, so not published. */
  removed: number;
}

/**
 * The hot loop of an import: every line through the parser, every current rate into the COPY,
 * every refusal into the tally. Synchronous per batch; it awaits only when the COPY asks it to
 * (backpressure), so a batch of thousands of lines costs one await at most. `reasonPrefix` names
 * the file when an archive holds several, since line numbers are per file.
 */
export async function feedRecords(batches: AsyncIterable<LineBatch>, parser: LineParser, writer: CopyRowWriter, rejects: RejectTally, reasonPrefix = ''): Promise<FeedCounts> {
  const counts: FeedCounts = { lines: 0, removed: 0 };
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
      for (const record of parsed) {
        if (record.removed) counts.removed++;
        else mustFlush = writer.add(record, lineNumber) || mustFlush;
      }
    }
    counts.lines += lines.length;
    if (mustFlush) await writer.flush();
  }
  return counts;
}
