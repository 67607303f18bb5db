import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { expect } from 'chai';
import { removeTenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
import { instanceVenvPython } from '#services/executor/runtime/pythonEnv/requirementFiles.ts';
import { ErpRunError, type ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { writeWheel } from '#test/support/wheel.ts';

const MANIFEST = "{'name': 'Acme', 'external_dependencies': {'python': ['forjatestdep']}}\n";

describe("process runtime: an instance's Python environment (real pip, a local wheel, the ERP stand-in)", function () {
  this.timeout(180_000);
  let root: string;
  let wheels: string;
  let runtime: ProcessRuntime;

  before(() => {
    root = runDir('instance-venv');
    wheels = runDir('wheels');
    writeWheel(wheels, 'forjatestdep', '1.0');
    runtime = new ProcessRuntime({ dataDir: root, pip: { findLinks: wheels } });
  });
  after(async () => {
    await runtime.close();
    expect(execFileSync('getent', ['passwd'], { encoding: 'utf8' }), 'the build accounts are removed').not.to.match(/^fi-pyenv-/m);
  });

  /** An instance whose checkout holds the module `acme_dep` and, when given, a requirements.txt. */
  async function instance(requirements?: string): Promise<ErpRunSpec> {
    const slug = `venv-${randomBytes(3).toString('hex')}`;
    const url = new URL(await createTestDatabase('venv'));
    const src = join(runDir('venv-src'), 'src');
    mkdirSync(join(src, 'acme_dep'), { recursive: true });
    writeFileSync(join(src, 'acme_dep', '__manifest__.py'), MANIFEST);
    writeFileSync(join(src, 'acme_dep', '__init__.py'), '');
    if (requirements !== undefined) writeFileSync(join(src, 'requirements.txt'), requirements);
    onTeardown(async () => {
      await runtime.destroy(slug);
      removeTenantAccount('instance', slug);
    });
    return {
      slug,
      erpVersion: '17.0',
      edition: 'community',
      database: url.pathname.slice(1),
      db: { host: url.hostname, port: Number(url.port), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
      sourceDir: src,
      addonsPath: [src],
      dataDir: instanceDir(root, slug),
      logFile: instanceLogFile(root, slug, 'erp'),
      root,
      tenant: { kind: 'instance', slug },
      python: instanceVenvPython(root, '17.0', src),
    };
  }

  it('without a requirements.txt the module fails to install, naming the missing package', async () => {
    const spec = await instance();
    expect(spec.python).to.equal(null);
    await runtime.build(spec);
    const error = await runtime.runOnce(spec, ['-i', 'acme_dep', '--stop-after-init']).then(() => null, (caught: unknown) => caught);
    expect(error).to.be.instanceOf(ErpRunError);
    expect(readFileSync(spec.logFile, 'utf8')).to.include(`Unable to install module "acme_dep" because an external dependency is not met: External dependency 'forjatestdep' not installed`);
  });

  it('with forjatestdep in requirements.txt and its wheel in FORJA_PIP_FIND_LINKS, builds a venv and installs it; a second instance reuses that venv', async () => {
    const first = await instance('forjatestdep\n');
    expect(first.python).to.match(/\/venvs\/17\.0-[0-9a-f]{32}\/venv\/bin\/python$/);
    await runtime.build(first);
    await runtime.runOnce(first, ['-i', 'acme_dep', '--stop-after-init']);
    expect(readFileSync(first.logFile, 'utf8')).to.include('Successfully installed forjatestdep-1.0').and.include('module acme_dep: installed');
    const venv = dirname(dirname(first.python!));
    if (process.getuid?.() === 0) {
      const { uid, mode } = statSync(join(venv, 'lib'));
      expect(uid, 'the finished venv is root’s').to.equal(0);
      expect(mode & 0o022, 'and nobody else may write it').to.equal(0);
    }

    const second = await instance('forjatestdep\n');
    expect(second.python).to.equal(first.python);
    const built = statSync(venv).ctimeMs;
    await runtime.build(second);
    expect(readFileSync(second.logFile, 'utf8')).to.include(`python: reusing the virtualenv ${dirname(venv)}`).and.not.include('pip install');
    expect(statSync(venv).ctimeMs, 'not rebuilt').to.equal(built);
    await runtime.runOnce(second, ['-i', 'acme_dep', '--stop-after-init']);
    expect(readFileSync(second.logFile, 'utf8')).to.include('module acme_dep: installed');
  });

  it('a requirement pip cannot find fails the build naming it, with pip’s message, and leaves no venv behind', async () => {
    const spec = await instance('forjatestdep\nforja-no-such-package==9.9\n');
    const error = await runtime.build(spec).then(() => null, (caught: unknown) => caught as Error);
    expect(error?.message).to.match(/^pip could not install forja-no-such-package==9\.9 \(from requirements\.txt\):\n/);
    expect(error?.message).to.include('No matching distribution found for forja-no-such-package==9.9');
    expect(readFileSync(spec.logFile, 'utf8')).to.include('ERROR: No matching distribution found for forja-no-such-package==9.9');
    expect(readdirSync(join(root, 'venvs')).filter((name) => name === basename(dirname(dirname(dirname(spec.python!)))) || name.startsWith('.build-'))).to.deep.equal([]);
  });
  it('rebuilds a ready venv when the wheels come from elsewhere now, saying why; the same settings reuse it again', async () => {
    const first = await instance('forjatestdep\n');
    await runtime.build(first);
    const otherWheels = runDir('other-wheels');
    writeWheel(otherWheels, 'forjatestdep', '1.0');
    const moved = new ProcessRuntime({ dataDir: root, pip: { findLinks: otherWheels } });
    try {
      const second = await instance('forjatestdep\n');
      await moved.build(second);
      expect(readFileSync(second.logFile, 'utf8')).to.include(`python: rebuilding the virtualenv ${dirname(dirname(dirname(second.python!)))}: built from another FORJA_PIP_FIND_LINKS`);
      await moved.runOnce(second, ['-i', 'acme_dep', '--stop-after-init']);
      const third = await instance('forjatestdep\n');
      await moved.build(third);
      expect(readFileSync(third.logFile, 'utf8')).to.include('python: reusing the virtualenv');
    } finally {
      await moved.close();
    }
  });
});
