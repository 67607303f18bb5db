import type { LineParser, PadronRecord, RegimeCode } from './padronRecord.ts';
import { createDdmmyyyyReader } from './dates.ts';
import { createRateReader } from './rates.ts';
import { fieldCountProblem, isBlank, isRateChangeMark, orNull, readRemovedMark, rejection } from './lineChecks.ts';
import { isRejection, readLineHead, splitTrimmed } from './lineHead.ts';

/**
 * Buenos Aires (ARBA) RGS: `P|R;pub;desde;hasta;CUIT;tipo;marcaAlta;marcaAlic;alicuota;grupo;`.
 * One file per regime, so every row's letter must be the file's regime. The rate is the 9th
 * field and the group the 10th (reading the group as the rate is a known bug elsewhere).
 */
export function createRgsParser(options: { regime: RegimeCode }): LineParser {
  const { regime } = options;
  const readDate = createDdmmyyyyReader();
  const readRate = createRateReader(',');
  return {
    layout: 'rgs',
    parseLine(line, lineNumber) {
      if (isBlank(line)) return null;
      const fields = splitTrimmed(line);
      const countProblem = fieldCountProblem(fields, 10, true);
      if (countProblem !== null) return rejection(lineNumber, countProblem);
      const rowRegime = fields[0];
      if (rowRegime !== 'P' && rowRegime !== 'R') return rejection(lineNumber, 'invalid regime letter');
      if (rowRegime !== regime) return rejection(lineNumber, `regime ${rowRegime} in a ${regime} file`);
      const head = readLineHead(fields, 1, lineNumber, readDate);
      if (isRejection(head)) return head;
      const removed = readRemovedMark(fields[6] ?? '');
      if (removed === undefined) return rejection(lineNumber, 'invalid marca alta');
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
        removed,
        kind: orNull(fields[5] ?? ''),
        group: orNull(fields[9] ?? ''),
        name: null,
      };
      return [record];
    },
  };
}
