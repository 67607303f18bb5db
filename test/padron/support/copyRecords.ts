import { Writable } from 'node:stream';
import { CopyRowWriter } from '#services/padron/import/copyRows.ts';
import type { PadronRecord } from '#services/padron/parse/padronRecord.ts';

/** A parser record with sensible defaults. */
export const record = (overrides: Partial<PadronRecord>): PadronRecord => ({
  cuit: 20000000001,
  regime: 'P',
  aliquot: '2.5',
  dateFrom: '2026-11-01',
  dateTo: '2026-11-30',
  published: null,
  removed: false,
  kind: 'D',
  group: '01',
  name: null,
  ...overrides,
});

/** Everything a writer produced for `records`, and the writer. */
export async function encode(records: PadronRecord[], lines?: number[]): Promise<{ bytes: Buffer; writer: CopyRowWriter }> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  const writer = new CopyRowWriter(sink);
  records.forEach((each, i) => writer.add(each, lines?.[i] ?? i + 1));
  await writer.end();
  return { bytes: Buffer.concat(chunks), writer };
}
