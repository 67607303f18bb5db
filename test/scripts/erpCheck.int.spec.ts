import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { testEngine } from '#test/support/podman.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { testStandinImage } from '#test/support/standinImage.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run erp:check -- …` as an operator runs it, on the test cluster (FORJA_ERP_DATABASE_URL) and a data folder of its own. */
function erpCheck(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/erpCheck.ts', ...args], { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const verdicts = (stdout: string) => stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) /.test(line));

/** The throwaway instance a run names in its first line. */
const slugOf = (run: Run): string => {
  const slug = /throwaway instance (erpcheck-[0-9a-f]+) /.exec(run.stdout)?.[1];
  if (!slug) throw new Error(`no throwaway instance named in:\n${run.stdout}${run.stderr}`);
  return slug;
};

/** What a run left of its throwaway instance: database, role, folder, OS account. */
async function leftovers(adminUrl: string, dataDir: string, slug: string): Promise<string[]> {
  const name = `forja_${slug.replaceAll('-', '_')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('select datname as name from pg_database where datname = $1 union all select rolname from pg_roles where rolname = $1', [name]);
    const folder = existsSync(join(dataDir, 'instances', slug)) ? [`instances/${slug}`] : [];
    const account = readFileSync('/etc/passwd', 'utf8').split('\n').filter((line) => line.startsWith(`fi-${slug}:`));
    return [...rows.map((row) => row.name), ...folder, ...account];
  } finally {
    await client.end();
  }
}

/**
 * The conformance check an operator runs once against their real ERP (issue 25, item 8): here
 * against the stand-in, which must pass it, and against an ERP that exits 0 and does nothing,
 * which must fail it; a wrong command line is refused before anything is made.
 */
describe('npm run erp:check', function () {
  this.timeout(60_000);
  let adminUrl: string;
  let env: Record<string, string>;
  let dataDir: string;

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
    dataDir = runDir('erp-check-data');
    env = { FORJA_DATA_DIR: dataDir, FORJA_ERP_DATABASE_URL: adminUrl, FORJA_RUNTIME: 'process' };
  });

  it('passes every behaviour against the stand-in on 17.0 (the default command), then leaves nothing behind', async () => {
    const run = await erpCheck(['--version', '17.0'], env);
    expect(run.code, run.stdout + run.stderr).to.equal(0);
    const lines = verdicts(run.stdout);
    expect(lines, run.stdout).to.have.length(8);
    for (const line of lines) expect(line).to.match(/^PASS .+ \(\d+ ms\)$/);
    expect(run.stdout).to.match(/PASS install a module from the repository's root \(forja_check_root\)/);
    expect(run.stdout).to.match(/PASS install a module from a nested folder \(addons\/forja_check_addons\)/);
    expect(run.stdout).to.match(/PASS install a module from a git submodule's nested folder/);
    expect(run.stdout).to.match(/PASS neutralize -d DB flags the database/);
    expect(run.stdout).to.match(/^summary: 8 passed, 0 failed, 0 skipped \(ERP 17\.0, Forja's ERP stand-in\)$/m);
    expect(await leftovers(adminUrl, dataDir, slugOf(run))).to.deep.equal([]);
  });

  it('fails, exit 1, against an ERP that exits 0 but installs nothing, naming what is missing; cleans up all the same', async () => {
    const fake = join(runDir('erp-check-fake'), 'odoo-bin');
    writeFileSync(fake, '#!/bin/sh\n# An ERP that accepts every command line and does nothing.\nexit 0\n', { mode: 0o755 });
    const run = await erpCheck(['--version', '17.0', '--command', fake, '--timeout', '3'], env);
    expect(run.code, run.stdout + run.stderr).to.equal(1);
    expect(run.stdout).to.match(/^FAIL install a module from a nested folder \(addons\/forja_check_addons\): modules not installed: base, forja_check_addons \(not found in the addons path: .*\/src, .*\/src\/addons, .*\/src\/vendor\/oca-tools\/web_tools\)$/m);
    expect(run.stdout).to.match(/^FAIL readiness: .*not ready within/m);
    expect(run.stdout).to.match(/^FAIL configuration file honoured: .*not checked: the ERP server never became ready/m);
    expect(run.stdout).to.match(/^summary: 0 passed, 8 failed, 0 skipped \(ERP 17\.0, command .*odoo-bin\)$/m);
    expect(await leftovers(adminUrl, dataDir, slugOf(run))).to.deep.equal([]);
  });

  it('refuses a wrong command line with exit 2 and says why, making nothing', async () => {
    const missing = await erpCheck([], env);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/^erp:check: --version is required/);
    expect(missing.stderr).to.include('usage: npm run erp:check');
    const both = await erpCheck(['--version', '17.0', '--command', '/bin/true', '--image', 'odoo:17.0'], env);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.include('give --command (process runtime) or --image (docker runtime), not both');
    const script = join(runDir('erp-check-plain'), 'odoo-bin');
    writeFileSync(script, 'not a program\n', { mode: 0o644 });
    const notExecutable = await erpCheck(['--version', '17.0', '--command', script], env);
    expect(notExecutable.code).to.equal(2);
    expect(notExecutable.stderr).to.include(`--command: ${script} (ERP version 17.0) is not executable`);
    expect(notExecutable.stdout).to.equal('');
  });
});

describe('npm run erp:check -- --image (docker runtime)', function () {
  this.timeout(180_000);

  // Issue 25, done-when: modules from addons/ and from a submodule's nested folder install in the container on every version.
  for (const version of ['16.0', '17.0', '18.0', '19.0']) {
    it(`passes every behaviour against the stand-in image on ${version}, then leaves nothing behind`, async function () {
      const engine = await testEngine();
      if ('skip' in engine) {
        console.log(`      (skipped: ${engine.skip})`);
        this.skip();
      }
      // The stand-in image runs this checkout's code through a bind mount of the checkout alone: a node_modules linked from elsewhere is not in it.
      if (lstatSync('node_modules').isSymbolicLink()) {
        console.log('      (skipped: node_modules is a link out of the checkout, which the stand-in image does not mount)');
        this.skip();
      }
      const image = await testStandinImage(engine.docker, version);
      const adminUrl = (await testCluster()).urlFor('postgres');
      const dataDir = runDir('erp-check-docker');
      const run = await erpCheck(['--version', version, '--image', image, '--timeout', '60'], { FORJA_DATA_DIR: dataDir, FORJA_ERP_DATABASE_URL: adminUrl, FORJA_DOCKER_SOCKET: engine.socketPath });
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(verdicts(run.stdout), run.stdout).to.have.length(8);
      expect(run.stdout).to.include(`summary: 8 passed, 0 failed, 0 skipped (ERP ${version}, image localhost/forja-erp-standin:${version})`);
      expect(await leftovers(adminUrl, dataDir, slugOf(run))).to.deep.equal([]);
      const containers = await engine.docker.listContainers({ all: true, filters: { label: ['forja.instance'] } });
      expect(containers.filter((container) => container.Labels['forja.instance']?.startsWith('erpcheck-'))).to.deep.equal([]);
    });
  }
});
