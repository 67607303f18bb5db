import { expect } from 'chai';
import { errorFirst, failureMessageLines } from '#services/executor/database/errorFirst.ts';

describe('executor: a failed tool’s message, error first', () => {
  const psql = [
    'psql:restore.sql:12: NOTICE:  relation "ir_cron" already exists, skipping',
    'psql:restore.sql:40: NOTICE:  drop cascades to 3 other objects',
    'psql:restore.sql:88: ERROR:  column "active" does not exist',
    'LINE 1: update ir_cron set active = false',
    'psql:restore.sql:88: FATAL:  terminating connection',
  ];

  it('puts ERROR and FATAL lines first, then the notices and context, each group in its order', () => {
    expect(errorFirst(psql)).to.deep.equal([psql[2], psql[4], psql[0], psql[1], psql[3]]);
  });

  it('leaves lines without a failure as they are', () => {
    expect(errorFirst(psql.slice(0, 2))).to.deep.equal(psql.slice(0, 2));
    expect(errorFirst([])).to.deep.equal([]);
  });

  it('leads with an error that scrolled out of the tail, and says each line once', () => {
    const tail = [psql[3]!, psql[4]!];
    expect(failureMessageLines([psql[2]!, psql[4]!], tail)).to.deep.equal([psql[2], psql[4], psql[3]]);
  });
});
