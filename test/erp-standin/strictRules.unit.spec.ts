import { mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseStandinArgs, UsageError } from '#services/erp-standin/args.ts';
import { demoForNewDatabase } from '#services/erp-standin/demo.ts';
import { requestInfo } from '#services/erp-standin/http.ts';
import { DEFAULT_ADDONS_PATH, erpAddonsPath, knownModules, modulesOn } from '#services/erp-standin/knownModules.ts';
import { STANDIN_BASE_ADDONS, STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { runDir } from '#test/support/runDir.ts';

const noRc = { HOME: '/nonexistent' };

/** The per-version rules the stand-in imitates from the real ERP (odoo/tools/config.py, odoo/modules/module.py, odoo/http.py). */
describe('ERP stand-in strict rules', () => {
  describe('addons path (erpAddonsPath)', () => {
    const root = runDir('standin-rules');
    const custom = join(root, 'custom');
    mkdirSync(join(custom, 'acme'), { recursive: true });
    writeFileSync(join(custom, 'acme', '__init__.py'), '');
    writeFileSync(join(custom, 'acme', '__manifest__.py'), "{'name': 'Acme', 'version': '2.1'}\n");
    const docs = join(root, 'docs');
    mkdirSync(join(docs, 'notes'), { recursive: true });
    writeFileSync(join(docs, 'notes', '__manifest__.py'), "{'name': 'no __init__.py'}\n");
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);

    it('lays the stand-in out like a source checkout: base in odoo/addons, the other standard modules in addons', () => {
      expect([...modulesOn([STANDIN_BASE_ADDONS]).keys()]).to.deep.equal(['base']);
      const standard = modulesOn([STANDIN_STANDARD_ADDONS]);
      expect(standard.get('sale')).to.equal('1.0');
      expect(standard.has('base')).to.equal(false);
      expect(modulesOn([STANDIN_BASE_ADDONS]).get('base'), "base's manifest version, as on 16.0 and 17.0").to.equal('1.3');
    });

    it('uses the defaults without an addons path, on every version', () => {
      for (const version of ['16.0', '17.0', '18.0', '19.0', undefined]) expect(erpAddonsPath([], version, warn)).to.deep.equal(DEFAULT_ADDONS_PATH);
    });

    it('on 16.0 and 17.0 replaces the default path, adding back only odoo/addons (base)', () => {
      for (const version of ['16.0', '17.0']) {
        const path = erpAddonsPath([custom], version, warn);
        expect(path).to.deep.equal([custom, STANDIN_BASE_ADDONS]);
        expect(modulesOn(path).has('sale'), `sale on ${version}`).to.equal(false);
        expect(erpAddonsPath([custom, STANDIN_STANDARD_ADDONS], version, warn)).to.deep.equal([custom, STANDIN_STANDARD_ADDONS, STANDIN_BASE_ADDONS]);
      }
    });

    it('on 18.0 and 19.0 adds the defaults back after the given entries', () => {
      for (const version of ['18.0', '19.0', undefined]) {
        const path = erpAddonsPath([custom], version, warn);
        expect(path).to.deep.equal([custom, ...DEFAULT_ADDONS_PATH]);
        expect(modulesOn(path).get('acme')).to.equal('2.1');
        expect(modulesOn(path).has('sale')).to.equal(true);
      }
    });

    it('on 16.0–18.0 refuses an entry with no module (a child needs __init__.py and a manifest) or a missing one; 19.0 warns and skips both', () => {
      expect(() => erpAddonsPath([custom, docs], '16.0', warn)).to.throw(UsageError, `option --addons-path: The addons-path '${docs}' does not seem to a be a valid Addons Directory!`);
      for (const version of ['17.0', '18.0']) {
        expect(() => erpAddonsPath([custom, docs], version, warn)).to.throw(UsageError, `option --addons-path: the path '${docs}' is not a valid addons directory`);
        expect(() => erpAddonsPath([join(root, 'gone')], version, warn)).to.throw(UsageError, `option --addons-path: no such directory: '${join(root, 'gone')}'`);
      }
      warnings.length = 0;
      expect(erpAddonsPath([docs, join(root, 'gone'), custom], '19.0', warn)).to.deep.equal([custom, ...DEFAULT_ADDONS_PATH]);
      expect(warnings).to.deep.equal([`option --addons-path, invalid addons directory '${docs}', skipped`, `option --addons-path, no such directory '${join(root, 'gone')}', skipped`]);
    });

    it('19.0 takes only __manifest__.py as a manifest when it checks a path entry', () => {
      const legacy = join(root, 'legacy');
      mkdirSync(join(legacy, 'old'), { recursive: true });
      writeFileSync(join(legacy, 'old', '__init__.py'), '');
      writeFileSync(join(legacy, 'old', '__openerp__.py'), '{}\n');
      expect(erpAddonsPath([legacy], '18.0', warn)).to.include(legacy);
      expect(erpAddonsPath([legacy], '19.0', warn)).to.not.include(legacy);
    });

    it('keeps knownModules (the migration coverage step) lenient: given folders plus every standard module', () => {
      const known = knownModules([custom]);
      expect(known.get('acme')).to.equal('2.1');
      expect(known.has('sale') && known.has('base')).to.equal(true);
      expect(() => knownModules([join(root, 'gone')])).to.throw(UsageError, 'no such directory');
    });
  });

  describe('options (args.ts)', () => {
    const root = runDir('standin-options');
    const conf = join(root, 'erp.conf');
    writeFileSync(
      conf,
      [
        '[options]',
        'db_name = fromfile',
        'proxy_mode = True',
        'without_demo = all',
        'workers = 3',
        'gevent_port = 9072',
        'data_dir = /var/lib/erp',
        'limit_memory_soft = 2147483648',
        'limit_memory_hard = 2684354560',
        'limit_time_cpu = 600',
        'limit_time_real = 1200',
        'http_port = 9069',
        '',
      ].join('\n'),
    );

    it('reads the hosting options from the -c file', () => {
      const options = parseStandinArgs(['-c', conf], noRc);
      expect(options).to.include({ database: 'fromfile', proxyMode: true, withoutDemo: 'all', workers: 3, geventPort: 9072, dataDir: '/var/lib/erp', httpPort: 9069 });
      expect(options.limits).to.deep.equal({ memorySoft: 2147483648, memoryHard: 2684354560, timeCpu: 600, timeReal: 1200 });
    });

    it('lets the command line win and knows its flags', () => {
      const options = parseStandinArgs(['-c', conf, '-d', 'db', '--workers', '0', '--gevent-port=8099', '--without-demo=False', '--limit-time-real', '60', '--limit-request', '8192'], noRc);
      // On the command line optparse keeps the string: `--without-demo=False` is a non-empty value, so demo is off.
      expect(options).to.include({ database: 'db', workers: 0, geventPort: 8099, withoutDemo: 'False' });
      expect(demoForNewDatabase(options, '17.0')).to.equal(false);
      expect(options.limits.timeReal).to.equal(60);
      expect(parseStandinArgs(['-d', 'db', '--proxy-mode', '--with-demo'], noRc)).to.include({ proxyMode: true, withDemo: true, workers: 0, geventPort: 8072, withoutDemo: undefined });
      expect(parseStandinArgs(['-d', 'db'], noRc)).to.include({ proxyMode: false, withDemo: false });
    });

    it('refuses an unknown flag and a bad integer as usage errors, as optparse does', () => {
      expect(() => parseStandinArgs(['-d', 'db', '--no-such-flag'], noRc)).to.throw(UsageError, "Unknown option '--no-such-flag'");
      expect(() => parseStandinArgs(['-d', 'db', '--workers', 'many'], noRc)).to.throw(UsageError, "option --workers: invalid integer value: 'many'");
      expect(() => parseStandinArgs(['-d', 'db', '--limit-memory-hard', '2G'], noRc)).to.throw(UsageError, "option --limit-memory-hard: invalid integer value: '2G'");
      expect(() => parseStandinArgs(['-d', 'db', '--gevent-port', '70000'], noRc)).to.throw(UsageError, '--gevent-port: "70000" is not a port');
    });
  });

  describe('values that start with a dash (optparse, odoo/tools/config.py)', () => {
    const noRc = { HOME: runDir('standin-dash-values') };
    it('takes the word after an option with a value as its value, as optparse does', () => {
      expect(parseStandinArgs(['-d', 'db', '--db_password', '-x1-', '-w', '--y', '--db_user', '-u'], noRc)).to.include({ database: 'db', dbPassword: '--y', dbUser: '-u' });
      expect(parseStandinArgs(['--db_password', '-x1', '-d', 'db'], noRc)).to.include({ dbPassword: '-x1', database: 'db' });
    });
    it('still refuses an unknown option and an option missing its value', () => {
      expect(() => parseStandinArgs(['-d', 'db', '--no-such-flag'], noRc)).to.throw(UsageError);
      expect(() => parseStandinArgs(['-d', 'db', '--db_password'], noRc)).to.throw(UsageError);
    });
  });

  describe('demo data (demo.ts)', () => {
    const none = { withDemo: false, withDemoInFile: false, withoutDemo: undefined };
    it('16.0–18.0: on unless without_demo; --with-demo does not exist', () => {
      for (const version of ['16.0', '17.0', '18.0', undefined]) {
        expect(demoForNewDatabase(none, version)).to.equal(true);
        expect(demoForNewDatabase({ ...none, withoutDemo: 'all' }, version)).to.equal(false);
        expect(demoForNewDatabase({ ...none, withoutDemo: 'True' }, version)).to.equal(false);
        expect(demoForNewDatabase({ ...none, withDemoInFile: true }, version), 'an unknown file key is ignored').to.equal(true);
        expect(() => demoForNewDatabase({ ...none, withDemo: true }, version)).to.throw(UsageError, 'no such option: --with-demo');
      }
    });
    it('19.0: off unless --with-demo or with_demo', () => {
      expect(demoForNewDatabase(none, '19.0')).to.equal(false);
      expect(demoForNewDatabase({ ...none, withDemo: true }, '19.0')).to.equal(true);
      expect(demoForNewDatabase({ ...none, withDemoInFile: true }, '19.0')).to.equal(true);
      expect(demoForNewDatabase({ ...none, withDemo: true, withoutDemo: 'True' }, '19.0')).to.equal(false);
    });
  });

  describe('proxy mode (requestInfo)', () => {
    const request = (headers: Record<string, string>) => ({ headers, socket: { remoteAddress: '10.0.0.5' } }) as unknown as IncomingMessage;
    const forwarded = { host: '10.0.0.2:8069', 'x-forwarded-host': 'erp.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.1, 203.0.113.9' };

    it('honours X-Forwarded-Host, -Proto and the last X-Forwarded-For only with proxy_mode', () => {
      expect(requestInfo(request(forwarded), true)).to.deep.equal({ urlRoot: 'https://erp.example/', remoteAddr: '203.0.113.9' });
      expect(requestInfo(request(forwarded), false)).to.deep.equal({ urlRoot: 'http://10.0.0.2:8069/', remoteAddr: '10.0.0.5' });
    });

    it('ignores every forwarded header without X-Forwarded-Host, even in proxy mode', () => {
      const { 'x-forwarded-host': _host, ...rest } = forwarded;
      expect(requestInfo(request(rest), true)).to.deep.equal({ urlRoot: 'http://10.0.0.2:8069/', remoteAddr: '10.0.0.5' });
    });
  });
});
