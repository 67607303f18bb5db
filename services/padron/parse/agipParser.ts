import type { LineParser, PadronRecord } from './padronRecord.ts';
import { NOT_ELEVEN_DIGITS, readCuit } from './cuit.ts';
import { createDdmmyyyyReader } from './dates.ts';
import { createRateReader } from './rates.ts';
import { fieldCountProblem, isBlank, isRateChangeMark, orNull, readRemovedMark, rejection } from './lineChecks.ts';
import { isRejection, readLineHead, splitTrimmed } from './lineHead.ts';

/**
 * AGIP's unified design, used by CABA, Santa Fe (PARP) and Entre Ríos:
 * `pub;desde;hasta;CUIT;tipo;marcaAlta;marcaAlic;alicPerc;alicRet;grpPerc;grpRet;razonSocial`.
 * One line carries both regimes, so it yields a perception and a withholding record.
 *
 * `headerLine` (Entre Ríos): line 1 is skipped when its CUIT column is not a number. Deciding by
 * content rather than always dropping line 1 means a file that arrives without its header loses
 * no row; a header-like line anywhere else is rejected like any malformed line.
 */
export function createAgipParser(options: { headerLine: boolean }): LineParser {
  const { headerLine } = options;
  const readDate = createDdmmyyyyReader();
  const readRate = createRateReader(',');
  return {
    layout: headerLine ? 'agip-with-header' : 'agip',
    parseLine(line, lineNumber) {
      if (isBlank(line)) return null;
      const fields = splitTrimmed(line);
      if (headerLine && lineNumber === 1 && readCuit(fields[3] ?? '') === NOT_ELEVEN_DIGITS) return null;
      const countProblem = fieldCountProblem(fields, 12);
      if (countProblem !== null) return rejection(lineNumber, countProblem);
      const head = readLineHead(fields, 0, lineNumber, readDate);
      if (isRejection(head)) return head;
      const removed = readRemovedMark(fields[5] ?? '');
      if (removed === undefined) return rejection(lineNumber, 'invalid marca alta');
      if (!isRateChangeMark(fields[6] ?? '')) return rejection(lineNumber, 'invalid marca alicuota');
      const perception = readRate(fields[7] ?? '');
      if (perception === null) return rejection(lineNumber, 'invalid rate (percepcion)');
      const withholding = readRate(fields[8] ?? '');
      if (withholding === null) return rejection(lineNumber, 'invalid rate (retencion)');
      const kind = orNull(fields[4] ?? '');
      const name = orNull(fields[11] ?? '');
      const { cuit, dateFrom, dateTo, published } = head;
      const records: PadronRecord[] = [
        { cuit, regime: 'P', aliquot: perception, dateFrom, dateTo, published, removed, kind, group: orNull(fields[9] ?? ''), name },
        { cuit, regime: 'R', aliquot: withholding, dateFrom, dateTo, published, removed, kind, group: orNull(fields[10] ?? ''), name },
      ];
      return records;
    },
  };
}
