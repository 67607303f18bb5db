import { expect } from 'chai';
import { phpSettings } from '#services/dbadmin/dbAdminProcess.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { dbAdminHeaders, dbAdminSlug, DBADMIN_HEADERS } from '#web/tools/dbAdminTool.ts';
import { isForjaHeader } from '#web/tools/toolProxy.ts';

describe('the database admin, what is pure', () => {
  it('reads the instance from the first segment after /dbadmin/, and nothing from a path without one', () => {
    expect(dbAdminSlug('/dbadmin/acme-norte-main/')).to.equal('acme-norte-main');
    expect(dbAdminSlug('/dbadmin/acme-norte-main/?pgsql=&username=forja_acme_norte_main&db=forja_acme_norte_main&select=res_partner')).to.equal('acme-norte-main');
    expect(dbAdminSlug('/dbadmin/acme?file=default.css')).to.equal('acme');
    expect(dbAdminSlug('/dbadmin/')).to.equal(undefined);
    expect(dbAdminSlug('/dbadmin')).to.equal(undefined);
    // Not a slug: Adminer gets no credentials and says where to open it.
    expect(dbAdminSlug('/dbadmin/Acme_Main/')).to.equal(undefined);
    expect(dbAdminSlug('/dbadmin/%2e%2e/')).to.equal(undefined);
    expect(dbAdminSlug('/dbadminx/acme/')).to.equal(undefined);
  });

  it('hands Adminer the instance role the executor creates: named like the database, password derived under the master key', () => {
    const masterKey = Buffer.alloc(32, 7);
    const headers = dbAdminHeaders('acme-norte-main', (database) => instanceCredentials(masterKey, database));
    expect(headers).to.deep.equal({
      [DBADMIN_HEADERS.user]: 'forja_acme_norte_main',
      [DBADMIN_HEADERS.password]: instanceCredentials(masterKey, 'forja_acme_norte_main').password,
      [DBADMIN_HEADERS.database]: 'forja_acme_norte_main',
    });
    // Another instance, another password: one instance's page never opens another's database.
    const other = dbAdminHeaders('acme-sur-main', (database) => instanceCredentials(masterKey, database));
    expect(other[DBADMIN_HEADERS.password]).to.not.equal(headers[DBADMIN_HEADERS.password]);
  });

  it('takes X-Forja-* request headers, in any case and with _ for -, for web\'s own (the proxy drops them from the browser)', () => {
    for (const name of Object.values(DBADMIN_HEADERS)) expect(isForjaHeader(name), name).to.equal(true);
    expect(isForjaHeader('X_Forja_Dbadmin_Password')).to.equal(true);
    expect(isForjaHeader('X-FORJA-ANYTHING')).to.equal(true);
    expect(isForjaHeader('x-forjadbadmin')).to.equal(false);
    expect(isForjaHeader('cookie')).to.equal(false);
    expect(isForjaHeader('x-forwarded-for')).to.equal(false);
  });

  it('runs PHP confined to Adminer\'s files and its own folder, with no commands and no URLs as files', () => {
    const args = phpSettings('/usr/share/adminer', '/data/dbadmin');
    const settings = new Map<string, string>();
    for (let i = 0; i < args.length; i += 2) {
      expect(args[i]).to.equal('-d');
      const [name, ...value] = args[i + 1]!.split('=');
      settings.set(name!, value.join('='));
    }
    const basedirs = settings.get('open_basedir')!.split(':');
    expect(basedirs).to.include('/usr/share/adminer').and.include('/data/dbadmin');
    expect(basedirs.every((dir) => dir === '/usr/share/adminer' || dir === '/data/dbadmin' || dir.endsWith('/services/dbadmin/php'))).to.equal(true);
    expect(settings.get('session.save_path')).to.equal('/data/dbadmin/sessions');
    expect(settings.get('disable_functions')).to.include('proc_open').and.include('shell_exec');
    expect(settings.get('allow_url_fopen')).to.equal('0');
  });
});
