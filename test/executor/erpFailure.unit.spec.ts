import { expect } from 'chai';
import { erpFailureMessage } from '#services/executor/migration/steps/erpFailure.ts';

describe('executor: a failed ERP run’s message leads with the error', () => {
  const runtime = 'odoo-bin -d forjamig_acme --update=all exited with code 1';

  it('puts the first ERROR line and the traceback’s exception before the command and its exit code', () => {
    const tail = [
      '2026-11-29 03:40:01,120 4242 INFO forjamig_acme odoo.modules.loading: loading 42 modules...',
      '2026-11-29 03:40:02,001 4242 WARNING forjamig_acme odoo.modules.graph: module theme_fancy: not installable, skipped',
      '2026-11-29 03:40:03,500 4242 ERROR forjamig_acme odoo.modules.migration: module acme_custom: post-migration failed',
      'Traceback (most recent call last):',
      '  File "/opt/acme/acme_custom/migrations/17.0.1.0/post-migrate.py", line 4, in migrate',
      '    cr.execute("select 1/0")',
      'psycopg2.errors.DivisionByZero: division by zero',
    ];
    expect(erpFailureMessage(runtime, tail)).to.equal(
      `ERROR forjamig_acme odoo.modules.migration: module acme_custom: post-migration failed — psycopg2.errors.DivisionByZero: division by zero (${runtime})`,
    );
  });

  it('takes a CRITICAL line, and says only what the runtime said when the log names no failure', () => {
    expect(erpFailureMessage(runtime, ['2026-11-29 03:40:03,500 7 CRITICAL ? odoo.service.server: Failed to initialize database `forjamig_acme`.'])).to.equal(
      `CRITICAL ? odoo.service.server: Failed to initialize database \`forjamig_acme\`. (${runtime})`,
    );
    expect(erpFailureMessage(runtime, ['2026-11-29 03:40:01,120 4242 INFO forjamig_acme odoo.modules.loading: loading 42 modules...'])).to.equal(runtime);
    expect(erpFailureMessage(runtime, [])).to.equal(runtime);
  });

  it('keeps the lines that continue the failure’s message (a bad query’s ERROR from PostgreSQL)', () => {
    const tail = [
      '2026-11-29 03:38:45,601 22744 ERROR forjamig_acme odoo.sql_db: bad query: UPDATE sale_order SET x = 1/0',
      'ERROR: division by zero',
      '2026-11-29 03:38:45,605 22744 CRITICAL forjamig_acme odoo.service.server: Failed to initialize database `forjamig_acme`.',
    ];
    expect(erpFailureMessage(runtime, tail)).to.equal(`ERROR forjamig_acme odoo.sql_db: bad query: UPDATE sale_order SET x = 1/0 ERROR: division by zero (${runtime})`);
  });
});
