import type { LineParser, PadronRecord, RegimeCode } from './padronRecord.ts';
import { createDdmmyyyyReader } from './dates.ts';
import { createRateReader } from './rates.ts';
import { fieldCountProblem, isBlank, isRateChangeMark, orNull, rejection } from './lineChecks.ts';
import { isRejection, readLineHead, splitTrimmed } from './lineHead.ts';

/**
 * Córdoba's LUA: `P|R;pub;desde;hasta;CUIT;categoria;X;marcaAlic;alicuota`, one file per regime.
 * Field 7 is always the letter `X`; a line without it is not LUA whatever its field count. The
 * layout has no marca alta, so nothing is ever reported removed, and no group.
 */
export function createLuaParser(options: { regime: RegimeCode }): LineParser {
  const { regime } = options;
  const readDate = createDdmmyyyyReader();
  const readRate = createRateReader(',');
  return {
    layout: 'lua',
    parseLine(line, lineNumber) {
      if (isBlank(line)) return null;
      const fields = splitTrimmed(line);
      const countProblem = fieldCountProblem(fields, 9);
      if (countProblem !== null) return rejection(lineNumber, countProblem);
      const rowRegime = fields[0];
      if (rowRegime !== 'P' && rowRegime !== 'R') return rejection(lineNumber, 'invalid regime letter');
      if (rowRegime !== regime) return rejection(lineNumber, `regime ${rowRegime} in a ${regime} file`);
      if (fields[6] !== 'X') return rejection(lineNumber, 'field 7 is not X');
      const head = readLineHead(fields, 1, lineNumber, readDate);
      if (isRejection(head)) return head;
      if (!isRateChangeMark(fields[7] ?? '')) return rejection(lineNumber, 'invalid marca alicuota');
      const aliquot = readRate(fields[8] ?? '');
      if (aliquot === null) return rejection(lineNumber, 'invalid rate (alicuota)');
      const record: PadronRecord = {
        cuit: head.cuit,
        regime,
        aliquot,
        dateFrom: head.dateFrom,
        dateTo: head.dateTo,
        published: head.published,
        removed: false,
        kind: orNull(fields[5] ?? ''),
        group: null,
        name: null,
      };
      return [record];
    },
  };
}
