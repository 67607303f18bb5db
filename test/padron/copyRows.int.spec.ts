import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expect } from 'chai';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { COPY_COLUMNS, COPY_FORMAT } from '#services/padron/import/copyRows.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { encode, record } from './support/copyRecords.ts';

/** The binary rows as PostgreSQL reads them back: the only judge of a binary COPY. */
describe('binary COPY into PostgreSQL', function () {
  this.timeout(30_000);
  let client: pg.Client;

  before(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase('padron_copy') });
    await client.connect();
  });
  after(() => client.end());

  async function roundTrip(records: Parameters<typeof encode>[0], lines?: number[]) {
    await client.query(`create temporary table copied (cuit bigint not null, regime char(1) not null, aliquot numeric not null,
      date_from date, date_to date, kind text, grp text, line integer not null) on commit drop`);
    const { bytes } = await encode(records, lines);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, i) => bytes.subarray(i * 1000, (i + 1) * 1000));
    await pipeline(Readable.from(chunks), client.query(copyStreams.from(`copy copied (${COPY_COLUMNS}) from stdin with (${COPY_FORMAT})`)));
    const { rows } = await client.query<Record<string, string | null>>(`select cuit::text, regime, aliquot::text, date_from::text, date_to::text, kind, grp, line::text from copied`);
    return rows;
  }

  beforeEach(() => client.query('begin'));
  afterEach(() => client.query('rollback'));

  it('stores exactly what the parser read', async () => {
    const rows = await roundTrip(
      [
        record({ cuit: 10000000000, aliquot: '6.00', kind: 'Ñandú', group: 'a\tb\\c' }),
        record({ cuit: 99999999999, regime: 'R', aliquot: '0', dateFrom: null, dateTo: null, kind: null, group: null }),
        record({ cuit: 30712281436, aliquot: '0.0001', dateFrom: '2000-01-01', dateTo: '2099-12-31' }),
        record({ cuit: 20111111112, aliquot: '100' }),
        record({ cuit: 20222222223, aliquot: '12.3456789' }),
      ],
      [1, 2, 999_999_999, 1_000_000_000, 2_147_483_647],
    );
    expect(rows).to.deep.equal([
      { cuit: '10000000000', regime: 'P', aliquot: '6.00', date_from: '2026-11-01', date_to: '2026-11-30', kind: 'Ñandú', grp: 'a\tb\\c', line: '1' },
      { cuit: '99999999999', regime: 'R', aliquot: '0', date_from: null, date_to: null, kind: null, grp: null, line: '2' },
      { cuit: '30712281436', regime: 'P', aliquot: '0.0001', date_from: '2000-01-01', date_to: '2099-12-31', kind: 'D', grp: '01', line: '999999999' },
      { cuit: '20111111112', regime: 'P', aliquot: '100', date_from: '2026-11-01', date_to: '2026-11-30', kind: 'D', grp: '01', line: '1000000000' },
      { cuit: '20222222223', regime: 'P', aliquot: '12.3456789', date_from: '2026-11-01', date_to: '2026-11-30', kind: 'D', grp: '01', line: '2147483647' },
    ]);
  });

  it('splits many rows into chunks without losing any', async () => {
    const rows = await roundTrip(Array.from({ length: 30_000 }, (_, i) => record({ cuit: 20000000000 + i, aliquot: String(i % 7) })));
    expect(rows).to.have.length(30_000);
    expect(rows[29_999]).to.deep.include({ cuit: '20000029999', aliquot: '4', line: '30000' });
  });
});
