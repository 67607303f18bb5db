import { expect } from 'chai';
import { createAgipParser } from '#services/padron/parse/agipParser.ts';
import { openParser } from '#services/padron/parse/detect.ts';
import { type Layout, classifyLine } from '#services/padron/parse/layouts.ts';
import { createLuaParser } from '#services/padron/parse/luaParser.ts';
import type { LineParser } from '#services/padron/parse/padronRecord.ts';
import { createRgsParser } from '#services/padron/parse/rgsParser.ts';
import { createSaltaPercentageParser, createSaltaRiskParser } from '#services/padron/parse/saltaParser.ts';
import { validateSaltaRates } from '#services/padron/parse/saltaRates.ts';
import { createTucumanParser } from '#services/padron/parse/tucumanParser.ts';

/** A real CABA line shape: the razón social, the last field, is empty (`…;00;00;`). */
const CABA_NO_NAME = '21032019;01042019;30042019;20000962997;C;S;N;3,00;3,00;00;00;';
const CABA_NAMED = '22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;ETCHEVERRIGARAY JUAN  CARLOS';

const RATES = validateSaltaRates({ CM: { RA: { P: '3' }, RB: { P: '2' }, SR: { P: '1' } }, JU: { RA: { P: '3' }, RB: { P: '2' }, SR: { P: '1' } } });
const PARSERS: Record<Layout, LineParser> = {
  agip: createAgipParser({ headerLine: false }),
  rgs: createRgsParser({ regime: 'P' }),
  lua: createLuaParser({ regime: 'P' }),
  tucuman: createTucumanParser(),
  'salta-risk': createSaltaRiskParser({ rates: RATES, dateFrom: '2026-06-01' }),
  'salta-percentage': createSaltaPercentageParser({ dateFrom: null }),
};

const BASE_LINES = [
  CABA_NAMED,
  CABA_NO_NAME,
  '21042026;1052026;31052026;20060166847;D;-;N;2,5;1,5;0;0;ENRIQUE COSTANTE BERTUCCELLI',
  'P;26032019;01042019;30042019;20000000028;D;N;N;6,00;25;',
  'P;26032019;01042019;30042019;20000000028;D;N;N;6,00;;',
  'P;22062026;01072026;31072026;20000780333;N;X;N;00,00',
  '20000163989\tPEÑA\tJU\tRA',
  '20000163989\tPEÑA\t1.5',
  '20000163989\t\t1.5',
  `30722222225     CM  20260601  20260630  ${'ACME SA'.padEnd(150)}    5`,
];

/** Each line, and the same line with the trailing-field quirks real files have. */
function variants(line: string): string[] {
  const separator = line.includes('\t') ? '\t' : ';';
  const withoutLast = line.slice(0, line.lastIndexOf(separator));
  return [line, `${line}${separator}`, `${line}${separator}${separator}`, `${withoutLast}${separator}`, withoutLast, `${line} `];
}

describe('padrón layout detection agrees with the parsers (issue 17, item 1)', () => {
  it('classifies every line a parser takes as that parser’s layout, trailing empty fields included', () => {
    let checked = 0;
    for (const line of BASE_LINES.flatMap(variants)) {
      for (const [layout, parser] of Object.entries(PARSERS) as Array<[Layout, LineParser]>) {
        const parsed = parser.parseLine(line, 9);
        if (!Array.isArray(parsed) || parsed.length === 0) continue;
        expect(classifyLine(line), `${layout} parses ${JSON.stringify(line)}`).to.equal(layout);
        checked++;
      }
    }
    expect(checked, 'lines the parsers took').to.be.above(BASE_LINES.length);
  });

  it('opens a CABA file whose first (or only) line has an empty razón social', () => {
    expect(openParser({ state: 'C', fileName: 'ARDJU008042019.TXT', firstLines: [CABA_NO_NAME] })).to.include({ layout: 'agip' });
    expect(openParser({ state: 'C', fileName: 'ARDJU008042019.TXT', firstLines: [CABA_NO_NAME, CABA_NAMED, ''] })).to.include({ layout: 'agip' });
    expect(openParser({ state: 'C', fileName: 'ARDJU008042019.TXT', firstLines: [CABA_NO_NAME, CABA_NO_NAME] }).parseLine(CABA_NO_NAME, 1)).to.have.length(2);
  });

  it('judges a file by its sample: a first line of no layout does not refuse the rows after it', () => {
    expect(openParser({ state: 'C', fileName: 'padron.txt', firstLines: ['PADRON DE REGIMENES GENERALES 04/2019', CABA_NO_NAME, CABA_NAMED] })).to.include({ layout: 'agip' });
  });

  it('refuses a sample with no line of any layout, saying how many lines it looked at', () => {
    const refuse = (firstLines: string[]) => {
      try {
        openParser({ state: 'C', fileName: 'x.txt', firstLines });
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected a refusal');
    };
    expect(refuse(['hello;world'])).to.equal(`'x.txt' matches no known padrón layout in its only line, and CABA expects CABA's AGIP layout; first line: "hello;world"`);
    expect(refuse([`${CABA_NAMED};EXTRA;FIELDS`, 'b'])).to.match(/^'x\.txt' matches no known padrón layout in any of its first 2 lines/);
    expect(refuse([])).to.equal(`'x.txt' matches no known padrón layout (it is empty), and CABA expects CABA's AGIP layout; first line: ""`);
  });
});
