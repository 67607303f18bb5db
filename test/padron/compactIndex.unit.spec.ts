import { expect } from 'chai';
import { findFirst, LoadIndexBuilder } from '#services/padron/lookup/compactIndex.ts';

describe('compact load index', () => {
  const build = () => {
    const builder = new LoadIndexBuilder(7, 2);
    builder.add(20000000001, 'P', '6.00', '2026-11-01', '2026-11-30');
    builder.add(20000000001, 'R', '2.5', '2026-11-01', '2026-11-30');
    builder.add(20000000028, 'P', '0.00', null, null);
    builder.add(30712281436, 'R', '1.25', '2026-11-01', null);
    return builder.finish();
  };

  it('grows past its capacity and finds the first row of a CUIT', () => {
    const index = build();
    expect(index.size).to.equal(4);
    expect(findFirst(index, 20000000001)).to.equal(0);
    expect(findFirst(index, 20000000028)).to.equal(2);
    expect(findFirst(index, 30712281436)).to.equal(3);
    expect(findFirst(index, 20000000002)).to.equal(-1);
    expect(findFirst(index, 99999999999)).to.equal(-1);
  });

  it('keeps rates and periods as JSON fragments', () => {
    const index = build();
    expect(index.aliquotJson[index.aliquots[0] ?? -1]).to.equal('6');
    expect(index.aliquotJson[index.aliquots[1] ?? -1]).to.equal('2.5');
    expect(index.periodJson[index.periods[0] ?? -1]).to.equal('"date_from":"2026-11-01","date_to":"2026-11-30"');
    expect(index.periodJson[index.periods[2] ?? -1]).to.equal('"date_from":null,"date_to":null');
    expect(index.periodJson[index.periods[3] ?? -1]).to.equal('"date_from":"2026-11-01","date_to":null');
    expect(index.aliquotJson).to.have.length(4);
  });

  it('finds exactly what a scan finds, in clustered and sparse data', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const size of [1, 2, 3, 50, 5000]) {
      const cuits = new Set<number>();
      while (cuits.size < size) cuits.add(random() < 0.5 ? 20000000000 + Math.floor(random() * 5e8) : 30500000000 + Math.floor(random() * 3e7));
      const sorted = [...cuits].sort((a, b) => a - b);
      const builder = new LoadIndexBuilder(1, size);
      for (const cuit of sorted) {
        builder.add(cuit, 'P', '1', null, null);
        if (cuit % 3 === 0) builder.add(cuit, 'R', '1', null, null);
      }
      const index = builder.finish();
      const probes = [...sorted, ...sorted.map((cuit) => cuit + 1), 19999999999, 40000000000, 25000000000];
      for (const cuit of probes) {
        let expected = -1;
        for (let i = 0; i < index.size; i++) if (index.cuits[i] === cuit) {
          expected = i;
          break;
        }
        expect(findFirst(index, cuit), `size ${size}, CUIT ${cuit}`).to.equal(expected);
      }
    }
  });

  it('refuses rows out of key order: a wrong order would make binary search lie', () => {
    const builder = new LoadIndexBuilder(1, 4);
    builder.add(20000000028, 'P', '1', null, null);
    expect(() => builder.add(20000000001, 'P', '1', null, null)).to.throw(/out of key order/);
  });
});
