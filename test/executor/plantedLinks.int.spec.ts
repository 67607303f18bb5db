import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { removeTenantAccount, tenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
import type { ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { jobLog } from '#services/executor/jobs/jobLog.ts';
import { layOutInstance, layOutMigration } from '#services/executor/runtime/tenantFolders.ts';
import { copyFilestore, extractFilestore } from '#services/executor/database/filestore.ts';
import { memoryLog } from './fixtures/databaseFixtures.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';

const SECRET = '{"masterKey":"not for viewers"}\n';
/** An ERP that writes a line to its output and exits: where its output lands is the runtime's choice. */
const FAKE_ERP = '#!/bin/sh\necho "erp output"\nexit 0\n';

/**
 * Issue 24, finding 1: root followed links an ERP's account planted in folders it could write.
 * Each test plants a link where root reads, appends or chowns, as a developer's shell could
 * (`ln -sf <data dir>/local-secrets.json logs/db.log`), and sees it refused or removed, its target
 * untouched.
 */
describe('links an ERP account plants where root works (issue 24)', function () {
  this.timeout(30_000);
  let root: string;
  let secret: string;
  let slug: string;
  /** Who owned instance folders before: any unprivileged uid (forja-erp's, here nobody's). */
  const formerOwner = { uid: 65534, gid: 65534 };

  beforeEach(function () {
    if (process.getuid?.() !== 0) this.skip(); // the attack needs root following the link
    root = runDir('planted-links');
    secret = join(root, 'local-secrets.json');
    writeFileSync(secret, SECRET, { mode: 0o600 });
    const made = `plant-${randomBytes(3).toString('hex')}`;
    slug = made;
    onTeardown(async () => removeTenantAccount('instance', made));
    onTeardown(async () => removeTenantAccount('migration', made));
  });

  /** An instance folder of the old layout: everything the ERP user's, links where the logs go. */
  function oldLayout(): string {
    const dir = instanceDir(root, slug);
    mkdirSync(join(dir, 'logs'), { recursive: true });
    chownSync(dir, formerOwner.uid, formerOwner.gid);
    chownSync(join(dir, 'logs'), formerOwner.uid, formerOwner.gid);
    symlinkSync(secret, instanceLogFile(root, slug, 'db'));
    symlinkSync(secret, instanceLogFile(root, slug, 'erp'));
    symlinkSync(secret, join(dir, 'home'));
    return dir;
  }

  const untouched = () => {
    expect(readFileSync(secret, 'utf8'), 'the secret\'s content').to.equal(SECRET);
    expect(statSync(secret).uid, 'the secret\'s owner').to.equal(0);
    expect(statSync(secret).mode & 0o777, 'the secret\'s mode').to.equal(0o600);
  };

  it('the blob store refuses to serve or stat a log that is a link (what web\'s log download reads)', async () => {
    oldLayout();
    const blobs = createFsBlobStore(root);
    const key = `instances/${slug}/logs/db.log`;
    const served = await blobs.get(key).then(
      async (stream) => {
        let text = '';
        for await (const chunk of stream) text += String(chunk);
        return text;
      },
      (error: Error) => error,
    );
    expect(served).to.be.instanceOf(Error);
    expect(await blobs.stat(key)).to.equal(null);
    untouched();
  });

  it('the blob store writes no blob through a link on its way', async () => {
    const dir = instanceDir(root, slug);
    mkdirSync(dir, { recursive: true });
    symlinkSync(root, join(dir, 'logs'));
    const blobs = createFsBlobStore(root);
    const writer = blobs.openWriter(`instances/${slug}/logs/local-secrets.json`);
    expect(await writer.then(() => 'written', (error: Error) => error.message)).to.match(/refused/);
    untouched();
  });

  it('a job\'s log line is not appended through a link', async () => {
    oldLayout();
    const log = jobLog(root, instanceLogFile(root, slug, 'db'));
    expect(await log('step database began').then(() => 'appended', (error: Error) => error.message)).to.match(/refused/);
    untouched();
  });

  it('the next start of an old-layout instance removes the links (never chowns through them) and runs the ERP as the instance\'s account', async () => {
    const dir = oldLayout();
    const command = join(root, 'fake-odoo-bin');
    writeFileSync(command, FAKE_ERP, { mode: 0o755 });
    const spec: ErpRunSpec = {
      slug,
      erpVersion: '17.0',
      edition: 'community',
      database: `forja_${slug.replace('-', '_')}`,
      db: { host: '127.0.0.1', port: 1, user: 'nobody', password: 'unused' },
      sourceDir: null,
      addonsPath: [],
      dataDir: dir,
      logFile: instanceLogFile(root, slug, 'erp'),
      root,
      tenant: { kind: 'instance', slug },
    };
    const runtime = new ProcessRuntime({ dataDir: root, command });
    await runtime.runOnce(spec, ['--stop-after-init']);
    await runtime.close();
    untouched();
    const account = tenantAccount('instance', slug)!;
    expect(existsSync(instanceLogFile(root, slug, 'db')), 'the link at logs/db.log, removed').to.equal(false);
    expect(lstatSync(spec.logFile).isFile(), 'logs/erp.log, a file of its own').to.equal(true);
    expect(readFileSync(spec.logFile, 'utf8'), 'the ERP\'s output, in a log of root\'s').to.include('erp output');
    expect(statSync(spec.logFile).uid).to.equal(0);
    expect(statSync(join(dir, 'logs'))).to.include({ uid: 0 });
    expect(statSync(join(dir, 'logs')).mode & 0o777).to.equal(0o700);
    expect(lstatSync(join(dir, 'home')).isDirectory(), 'home: a folder of its own, not the link').to.equal(true);
    expect(statSync(join(dir, 'home')).uid).to.equal(account.uid);
    expect(statSync(dir)).to.include({ uid: 0, gid: account.gid });
  });

  it('a restore never writes through filestore/<db> or filestore/<db>.partial planted as links; the tree is the instance\'s', async () => {
    const account = tenantAccount('instance', slug)!;
    const dir = instanceDir(root, slug);
    layOutInstance(root, slug, account);
    const victim = join(root, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'kept'), 'root\'s\n');
    const filestore = join(dir, 'filestore', 'forja_db');
    symlinkSync(victim, filestore);
    symlinkSync(victim, `${filestore}.partial`);
    const source = join(root, 'source');
    mkdirSync(join(source, 'ab'), { recursive: true });
    writeFileSync(join(source, 'ab', 'ab12'), 'attachment\n');
    const archive = join(root, 'filestore.tar');
    execFileSync('tar', ['-c', '-f', archive, '-C', source, '.']);
    expect(await extractFilestore(archive, filestore, memoryLog().stream, undefined, { root })).to.deep.equal({ files: 1 });
    expect(readdirSync(victim), 'the link targets').to.deep.equal(['kept']);
    expect(statSync(victim).uid).to.equal(0);
    expect(lstatSync(filestore).isDirectory()).to.equal(true);
    expect(statSync(join(filestore, 'ab', 'ab12')).uid, 'the restored files').to.equal(account.uid);
    untouched();
  });

  it('a copy reads the source filestore as its tenant: a link there to a secret is refused, and the secret never copied', async () => {
    const account = tenantAccount('instance', slug)!;
    layOutInstance(root, slug, account);
    const from = join(instanceDir(root, slug), 'filestore', 'forja_db');
    mkdirSync(join(from, 'ab'), { recursive: true });
    symlinkSync(secret, join(from, 'ab', 'ab12'));
    execFileSync('chown', ['-R', '-h', `${account.uid}:${account.gid}`, from]);
    const to = join(root, 'copies', 'forja_copy');
    mkdirSync(join(root, 'copies'));
    const refusal = await copyFilestore(from, to, memoryLog().stream, { root, reader: account }).then(() => 'copied', (error: Error) => error.message);
    expect(refusal).to.match(/symbolic link/);
    expect(existsSync(to)).to.equal(false);
    // The source folder itself a link to root's files: tar, run as the tenant, cannot read them.
    const rootsOwn = join(root, 'roots-own');
    mkdirSync(join(rootsOwn, 'ab'), { recursive: true, mode: 0o700 });
    writeFileSync(join(rootsOwn, 'ab', 'ab12'), SECRET, { mode: 0o600 });
    execFileSync('rm', ['-rf', from]);
    symlinkSync(rootsOwn, from);
    const denied = await copyFilestore(from, to, memoryLog().stream, { root, reader: account }).then(() => 'copied', (error: Error) => error.message);
    expect(denied).to.match(/Permission denied/);
    expect(existsSync(to)).to.equal(false);
    untouched();
  });

  it('a migration run folder of the old layout is taken back: run.log planted as a link is removed, not appended through', async () => {
    const run = join(root, 'migrations', slug, 'runs', '1');
    mkdirSync(run, { recursive: true });
    chownSync(run, formerOwner.uid, formerOwner.gid);
    symlinkSync(secret, join(run, 'run.log'));
    layOutMigration(root, slug, tenantAccount('migration', slug));
    await jobLog(root, join(run, 'run.log'))('run 1 began');
    untouched();
    expect(statSync(run)).to.include({ uid: 0 });
    expect(lstatSync(join(run, 'run.log')).isFile()).to.equal(true);
    const account = tenantAccount('migration', slug)!;
    expect(statSync(join(root, 'migrations', slug)), 'the migration\'s folder, traversed by its account').to.include({ uid: 0, gid: account.gid });
    expect(statSync(join(root, 'migrations', slug, 'work'))).to.include({ uid: 0, gid: account.gid });
    expect(statSync(join(root, 'migrations', slug, 'work', 'filestore')).uid).to.equal(account.uid);
  });
});
