import { expect } from 'chai';
import { maskSecret, redact, upgradeStateOf } from '#services/executor/migration/upgradeService/index.ts';

describe('executor: upgrade-service states and masks', () => {
  it('maps the platform’s states to Forja’s, with what a resumed run does next', () => {
    const table = Object.fromEntries(
      ['new', 'pending', 'progress', 'done', 'failed', 'cancelled'].map((state) => {
        const { state: mapped, phase } = upgradeStateOf(state);
        return [state, `${mapped}/${phase}`];
      }),
    );
    expect(table).to.deep.equal({
      new: 'pending/upload',
      pending: 'pending/process',
      progress: 'progress/poll',
      done: 'done/download',
      failed: 'failed/failed',
      cancelled: 'cancelled/cancelled',
    });
  });

  it('keeps polling a state it does not know, saying so', () => {
    expect(upgradeStateOf('migrating')).to.deep.equal({ state: 'progress', phase: 'poll', known: false });
    expect(upgradeStateOf('constructor').known).to.equal(false);
    // The legacy database/v1 API's words are not the current protocol's.
    expect(upgradeStateOf('delivered').known).to.equal(false);
  });

  it('masks all but the last 4 characters, and a short secret whole', () => {
    expect(maskSecret('M123456-abcdef')).to.equal('**********cdef');
    expect(maskSecret('abcdefgh')).to.equal('********');
    expect(redact('contract M123456-abcdef, again M123456-abcdef', ['M123456-abcdef', undefined])).to.equal('contract **********cdef, again **********cdef');
  });
});
