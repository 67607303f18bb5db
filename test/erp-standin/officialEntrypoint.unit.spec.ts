import { expect } from 'chai';
import { databaseArgs, planEntrypoint } from '#services/erp-standin/image/officialEntrypoint.ts';

/** Forja's generated file (erpConfigFile.ts writes `name = value`). */
const FORJA_RC = '[options]\ndb_host = 127.0.0.1\ndb_port = 5433\ndb_user = forja_acme\ndb_password = s3cret\nlist_db = False\n';

describe('stand-in image: the official entrypoint (odoo/docker <version>/entrypoint.sh)', () => {
  describe('up to 18.0: always appends the four database options', () => {
    it('takes each from $ODOO_RC when it has a line, so the password is on the command line', () => {
      expect(databaseArgs('17.0', {}, FORJA_RC, null)).to.deep.equal(['--db_host', '127.0.0.1', '--db_port', '5433', '--db_user', 'forja_acme', '--db_password', 's3cret']);
    });

    it('falls back to HOST/PORT/USER/PASSWORD, then to db, 5432, odoo, odoo, when it cannot read the file (the image user 101 and a 0600 file)', () => {
      expect(databaseArgs('18.0', {}, null, null)).to.deep.equal(['--db_host', 'db', '--db_port', '5432', '--db_user', 'odoo', '--db_password', 'odoo']);
      expect(databaseArgs('16.0', { HOST: 'pg', POSTGRES_PASSWORD: 'pw' }, null, null)).to.deep.equal(['--db_host', 'pg', '--db_port', '5432', '--db_user', 'odoo', '--db_password', 'pw']);
    });

    it('reads a value as `cut -d " " -f3` does: `db_host=x` without spaces comes whole, quotes are dropped', () => {
      expect(databaseArgs('17.0', {}, '[options]\ndb_host=pg.internal\ndb_password = "quoted"\n', null)).to.include.ordered.members(['--db_host', 'db_host=pg.internal']);
      expect(databaseArgs('17.0', {}, '[options]\ndb_password = "quoted"\n', null).slice(-1)).to.deep.equal(['quoted']);
    });

    it('takes PASSWORD_FILE over PASSWORD', () => {
      expect(databaseArgs('17.0', { PASSWORD: 'env' }, null, 'from-file').slice(-2)).to.deep.equal(['--db_password', 'from-file']);
    });
  });

  describe('19.0: appends only what the file does not set', () => {
    it('appends nothing when the readable file sets all four', () => {
      expect(databaseArgs('19.0', {}, FORJA_RC, null)).to.deep.equal([]);
    });

    it('appends the defaults, password included, when the file cannot be read', () => {
      expect(databaseArgs('19.0', {}, null, null)).to.deep.equal(['--db_host', 'db', '--db_port', '5432', '--db_user', 'odoo', '--db_password', 'odoo']);
    });

    it('skips an option whose PG* variable is set', () => {
      expect(databaseArgs('19.0', { PGPASSWORD: 'x', PGHOST: 'h' }, null, null)).to.deep.equal(['--db_port', '5432', '--db_user', 'odoo']);
    });
  });

  describe('what it execs', () => {
    it('`odoo …` and `-…`: waits for the database, then runs odoo with the arguments and the database options after them', () => {
      const plan = planEntrypoint('17.0', ['odoo', '-c', '/etc/forja/erp.conf'], {}, FORJA_RC);
      expect(plan.exec).to.deep.equal(['odoo', '-c', '/etc/forja/erp.conf', '--db_host', '127.0.0.1', '--db_port', '5433', '--db_user', 'forja_acme', '--db_password', 's3cret']);
      expect(plan.waitFor).to.deep.include({ host: '127.0.0.1', port: '5433', password: 's3cret', timeoutSeconds: 30 });
      expect(planEntrypoint('17.0', ['--dev', 'all'], {}, FORJA_RC).exec.slice(0, 3)).to.deep.equal(['odoo', '--dev', 'all']);
    });

    it('19.0 waits with the file\'s values even when it appended none', () => {
      const plan = planEntrypoint('19.0', ['odoo'], {}, FORJA_RC);
      expect(plan.exec).to.deep.equal(['odoo']);
      expect(plan.waitFor).to.deep.include({ host: '127.0.0.1', user: 'forja_acme', password: 's3cret' });
    });

    it('scaffold and any other command run as given, without waiting', () => {
      expect(planEntrypoint('17.0', ['odoo', 'scaffold', 'x'], {}, null)).to.deep.equal({ exec: ['odoo', 'scaffold', 'x'], waitFor: null });
      expect(planEntrypoint('17.0', ['bash'], {}, null)).to.deep.equal({ exec: ['bash'], waitFor: null });
    });
  });
});
