import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';

describe('executor start', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'forja-executor-start-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fails with one line naming libarchive-tools when bsdtar is missing and may not be installed', async () => {
    const installs: string[] = [];
    const notRoot = (name: string, hint: string): never => {
      installs.push(name);
      throw new Error(hint);
    };
    // The check comes before the executor touches any infrastructure, so there is none to give it.
    const noInfrastructure = {} as Infrastructure;
    const start = executorStarter({}, { searchPath: dir, installPackage: notRoot });
    const failure = await start(noInfrastructure, loadConfig({ FORJA_DATA_DIR: dir }), silentLogger).then(
      () => expect.fail('the executor started without bsdtar'),
      (error: unknown) => error as Error,
    );
    expect(failure.message).to.equal('bsdtar is missing: install the Debian package libarchive-tools');
    expect(installs).to.deep.equal(['libarchive-tools']);
  });
});
