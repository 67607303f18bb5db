import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '#shared/config/config.ts';
import { checkCommand, erpCommandFor, isStandin, STANDIN_COMMAND, withPython } from '#services/executor/runtime/process/erpCommand.ts';
import { requirementFiles, requirementsKey } from '#services/executor/runtime/pythonEnv/requirementFiles.ts';
import { runDir } from '#test/support/runDir.ts';

describe('FORJA_ERP_COMMAND as an interpreter and a script', () => {
  let dir: string;
  before(() => {
    dir = runDir('erp-command');
    mkdirSync(join(dir, '17.0/bin'), { recursive: true });
    writeFileSync(join(dir, '17.0/bin/python'), '#!/bin/sh\n');
    chmodSync(join(dir, '17.0/bin/python'), 0o755);
    writeFileSync(join(dir, '17.0/odoo-bin'), '# a script, not executable: the interpreter runs it\n');
  });

  it('splits on whitespace, replaces {version} in every part and checks each path', () => {
    const command = erpCommandFor(`  ${dir}/{version}/bin/python   ${dir}/{version}/odoo-bin `, '17.0');
    expect(command).to.deep.equal([join(dir, '17.0/bin/python'), join(dir, '17.0/odoo-bin')]);
    expect(() => checkCommand(command, '17.0')).not.to.throw();
    const missing = erpCommandFor(`${dir}/{version}/bin/python ${dir}/{version}/no-odoo-bin`, '17.0');
    expect(() => checkCommand(missing, '17.0')).to.throw(ConfigError, `FORJA_ERP_COMMAND: ${join(dir, '17.0/no-odoo-bin')} (ERP version 17.0) is not a file`);
    expect(() => checkCommand([join(dir, '17.0/odoo-bin')], '17.0')).to.throw(ConfigError, 'is not executable');
  });

  it("puts an instance's venv interpreter in place of the command's, or in front of a script alone", () => {
    expect(withPython(['/opt/venv/bin/python', '/opt/odoo/odoo-bin'], '/v/bin/python')).to.deep.equal(['/v/bin/python', '/opt/odoo/odoo-bin']);
    expect(withPython([STANDIN_COMMAND], '/v/bin/python')).to.deep.equal(['/v/bin/python', STANDIN_COMMAND]);
    expect(withPython([STANDIN_COMMAND], null)).to.deep.equal([STANDIN_COMMAND]);
    expect(isStandin(['/usr/bin/python3', STANDIN_COMMAND])).to.equal(true);
    expect(isStandin(`python3 ${STANDIN_COMMAND}`)).to.equal(true);
    expect(isStandin([join(dir, '17.0/bin/python'), join(dir, '17.0/odoo-bin')])).to.equal(false);
  });
});

describe("an instance's requirement files (Odoo.sh's rule)", () => {
  it('takes the root one and those of folders holding modules, submodules too, dot-folders and module insides skipped, links never followed', () => {
    const src = runDir('requirements');
    const file = (path: string, text = '') => {
      mkdirSync(join(src, path, '..'), { recursive: true });
      writeFileSync(join(src, path), text);
    };
    file('requirements.txt', 'a\n');
    file('addons/sale_x/__manifest__.py', '{}');
    file('addons/requirements.txt', 'b\n');
    file('oca/web/web_x/__manifest__.py', '{}');
    file('oca/web/requirements.txt', 'c\n');
    file('oca/requirements.txt', 'not a folder holding modules\n');
    file('addons/sale_x/requirements.txt', 'inside a module\n');
    file('.git/modules/requirements.txt', 'dot-folder\n');
    file('linked/mod_y/__manifest__.py', '{}');
    symlinkSync('/etc/passwd', join(src, 'linked/requirements.txt'));
    const found = requirementFiles(src);
    expect(found.map((entry) => [entry.path, entry.content.toString()])).to.deep.equal([
      ['requirements.txt', 'a\n'],
      ['addons/requirements.txt', 'b\n'],
      ['oca/web/requirements.txt', 'c\n'],
    ]);
    expect(requirementsKey('17.0', found)).to.not.equal(requirementsKey('18.0', found));
    expect(requirementsKey('17.0', found)).to.not.equal(requirementsKey('17.0', found.slice(1)));
    expect(requirementFiles(join(src, 'nowhere'))).to.deep.equal([]);
  });
});
