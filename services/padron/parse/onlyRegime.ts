import type { LineParser, RegimeCode } from './padronRecord.ts';

/**
 * Narrows a two-regime parser to one regime (an import of only CABA's perception rates, say).
 * A line whose records are all of the other regime yields an empty list, not a rejection.
 */
export function onlyRegime(parser: LineParser, regime: RegimeCode): LineParser {
  return {
    layout: parser.layout,
    parseLine(line, lineNumber) {
      const result = parser.parseLine(line, lineNumber);
      return Array.isArray(result) ? result.filter((record) => record.regime === regime) : result;
    },
  };
}
