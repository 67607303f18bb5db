import { deciderSpec } from '#test/support/deciderSpec.ts';
import type { PadronLoaded, PadronLoadedData } from '#services/padron/padron.ts';
import { PadronLoadAlreadyRecordedError, padronDecider } from '#services/padron/padron.decider.ts';

const load = (sha256: string, loadId = 1): PadronLoadedData => ({
  loadId,
  state: 'B',
  regimes: ['P'],
  fileName: 'PadronRGSPer112026.TXT',
  entries: ['PadronRGSPer112026.TXT'],
  sha256,
  layout: 'rgs',
  validFrom: '2026-11-01',
  validTo: '2026-11-30',
  publishedAt: '2026-11-22T10:00:00.000Z',
  rowsLoaded: 10,
  rowsRemoved: 1,
  rowsRejected: 0,
  rejects: [],
  durationMs: 5,
});
const loaded = (data: PadronLoadedData): PadronLoaded => ({ type: 'PadronLoaded', data });

describe('padrón decider', () => {
  const spec = deciderSpec(padronDecider);
  const first = load('a'.repeat(64));

  it('records the first load of a file', () => {
    spec.given([]).when({ type: 'RecordPadronLoad', load: first }).then([loaded(first)]);
  });

  it('records another file of the same jurisdiction', () => {
    const second = load('b'.repeat(64), 2);
    spec.given([loaded(first)]).when({ type: 'RecordPadronLoad', load: second }).then([loaded(second)]);
  });

  it('records the same file again as a new load (retention dropped the first, or it took another regime)', () => {
    const again = load('a'.repeat(64), 7);
    spec.given([loaded(first)]).when({ type: 'RecordPadronLoad', load: again }).then([loaded(again)]);
  });

  it('refuses a load already recorded, so two runs finishing one publish record it once', () => {
    spec
      .given([loaded(first)])
      .when({ type: 'RecordPadronLoad', load: { ...first, durationMs: 9 } })
      .thenThrows(PadronLoadAlreadyRecordedError, /^load 1 \(PadronRGSPer112026\.TXT, published 2026-11-22T10:00:00\.000Z\) is already recorded; nothing changed$/);
  });
});
