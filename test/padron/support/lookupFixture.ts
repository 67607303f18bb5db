import { argentineDateTime } from '#services/padron/time.ts';
import { createPadronDatabase, type PadronDatabase } from './padronDatabase.ts';
import { agipLines, fileFolder, monthPeriod, rgsLines, validCuit, writeLines } from './padronFiles.ts';

/**
 * A database with today's loads for B (P and R files), C (one file, both regimes, one removed
 * subject) and X (perception), plus last month's C load, which only `date=` reaches.
 */
export interface LookupFixture {
  db: PadronDatabase;
  folder: string;
  /** [0] has rates everywhere, [1] only B P, [2] is removed in C, [3] has none. */
  cuits: string[];
  period: { from: string; to: string };
  lastMonth: { from: string; to: string };
  /** `last_update` by state: its newest answering load's publish (B's is the withholding file, imported second). */
  lastUpdate: Record<string, string>;
}

export async function createLookupFixture(prefix: string): Promise<LookupFixture> {
  const db = await createPadronDatabase(prefix);
  const folder = fileFolder();
  const cuits = [11, 12, 13, 14].map((n) => validCuit(2000000000 + n));
  const [a = '', b = '', c = ''] = cuits;
  const period = monthPeriod();
  const lastMonth = monthPeriod(-1);
  const lastUpdate: Record<string, string> = {};
  const stamp = (key: string, publishedAt: string) => (lastUpdate[key] = argentineDateTime(new Date(publishedAt)));

  await db.load({ state: 'C', path: writeLines(folder, 'ARDJU-last-month.TXT', agipLines(lastMonth, [{ cuit: a, perception: '4,00', withholding: '4,00' }])) });
  await db.load({ state: 'B', path: writeLines(folder, 'PadronRGSPer-now.TXT', rgsLines('P', period, [{ cuit: a, rate: '6,00', group: '25' }, { cuit: b, rate: '02,75' }])) });
  const withholding = await db.load({ state: 'B', path: writeLines(folder, 'PadronRGSRet-now.TXT', rgsLines('R', period, [{ cuit: a, rate: '1,5' }])) });
  stamp('B', withholding.publishedAt);
  const caba = await db.load({
    state: 'C',
    path: writeLines(folder, 'ARDJU-now.TXT', agipLines(period, [{ cuit: a, perception: '3,00', withholding: '2,00' }, { cuit: c, perception: '5,00', withholding: '5,00', removed: true }])),
  });
  stamp('C', caba.publishedAt);
  const cordobaLine = (cuit: string) => `P;01012026;${period.from.split('-').reverse().join('')};${period.to.split('-').reverse().join('')};${cuit};C;X;N;0,5`;
  const cordoba = await db.load({ state: 'X', path: writeLines(folder, 'Regimen de percepcion.txt', [cordobaLine(a)]) });
  stamp('X', cordoba.publishedAt);
  return { db, folder, cuits, period, lastMonth, lastUpdate };
}
