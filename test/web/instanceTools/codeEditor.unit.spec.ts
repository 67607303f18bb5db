import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { codeEditorTool } from '#web/tools/instanceTools/codeEditor.tool.ts';
import type { InstanceToolLaunch } from '#web/tools/instanceTools/instanceToolSpec.ts';

describe('the code editor\'s launch (codeEditor.tool.ts)', () => {
  /** FORJA_DATA_DIR/instances in the tests: the trusted base the tool's folder is reached from. */
  let instances: string;
  let root: string;
  let launch: InstanceToolLaunch;

  beforeEach(() => {
    instances = mkdtempSync(join(tmpdir(), 'forja-code-editor-'));
    root = join(instances, 'acme-dev');
    const workDir = join(root, 'tools', 'code');
    mkdirSync(workDir, { recursive: true });
    const socketPath = join(workDir, 'tool.sock');
    launch = {
      slug: 'acme-dev',
      instanceDir: root,
      sourceDir: join(root, 'src'),
      workDir,
      folder: { base: instances, relative: 'acme-dev/tools/code' },
      owner: null,
      port: 0,
      socketPath,
      socket: { base: instances, relative: 'acme-dev/tools/code/tool.sock' },
      socketHandle: null,
      token: 'a'.repeat(64),
      basePath: '/instances/acme-dev/code/proxy',
    };
  });
  afterEach(() => rmSync(instances, { recursive: true, force: true }));

  it('listens on its socket, opens the source checkout, and keeps the secret off the command line', () => {
    const { file, args, env } = codeEditorTool.command(launch);
    expect(file).to.equal(process.execPath);
    expect(args).to.include.members(['--auth=password', `--socket=${launch.socketPath}`, '--socket-mode=600', '--disable-telemetry', '--disable-update-check', '--disable-proxy']);
    expect(args.at(-1)).to.equal(launch.sourceDir);
    expect(args.join(' ')).not.to.include(launch.token);
    expect(env['HASHED_PASSWORD'], 'compared as it is with the cookie the proxy sends').to.equal(launch.token);
    expect(codeEditorTool.injectHeaders(launch.token)).to.deep.equal({ cookie: `code-server-session=${launch.token}` });
    expect(JSON.parse(env['EXTENSIONS_GALLERY']!), 'no extension marketplace').to.deep.equal({});
    for (const name of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME']) expect(env[name], name).to.match(new RegExp(`^${launch.workDir}/`));
  });

  it('opens the instance folder when the instance has no checkout', () => {
    expect(codeEditorTool.command({ ...launch, sourceDir: null }).args.at(-1)).to.equal(root);
  });

  it('keeps its data in its own folder, with offline settings written once and the user\'s changes kept', () => {
    const { args } = codeEditorTool.command(launch);
    const settingsFile = join(launch.workDir, 'user-data', 'User', 'settings.json');
    expect(args).to.include.members([`--user-data-dir=${join(launch.workDir, 'user-data')}`, `--extensions-dir=${join(launch.workDir, 'extensions')}`, `--config=${join(launch.workDir, 'config.yaml')}`]);
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).to.include({ 'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'json.schemaDownload.enable': false });
    writeFileSync(settingsFile, '{"editor.fontSize": 16}\n');
    codeEditorTool.command(launch);
    expect(readFileSync(settingsFile, 'utf8')).to.equal('{"editor.fontSize": 16}\n');
  });

  it('shows a checkout that is not its user\'s read-only, instead of failing at each save', function () {
    mkdirSync(launch.sourceDir!);
    const settings = () => JSON.parse(readFileSync(join(launch.workDir, 'user-data', 'User', 'settings.json'), 'utf8')) as Record<string, unknown>;
    codeEditorTool.command(launch);
    expect(settings(), 'the checkout is the editor user\'s own').not.to.have.property('files.readonlyInclude');
    if (process.getuid?.() !== 0) this.skip(); // giving the tool's folder to another user needs root
    rmSync(join(launch.workDir, 'user-data'), { recursive: true });
    // As root: the tool runs as the instance's account, the checkout stays root's.
    launch.owner = { uid: 65534, gid: 65534 };
    codeEditorTool.command(launch);
    expect(settings()).to.deep.include({ 'files.readonlyInclude': { '**': true } });
    for (const made of ['user-data', 'user-data/User', 'user-data/User/settings.json', 'extensions', 'home']) expect(statSync(join(launch.workDir, made)).uid, made).to.equal(65534);
  });

  it('never writes through a link the tenant put in its folder (issue 24: user-data, a seed file)', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'forja-root-owned-'));
    try {
      const before = statSync(elsewhere);
      symlinkSync(elsewhere, join(launch.workDir, 'user-data'));
      symlinkSync(join(elsewhere, 'config.yaml'), join(launch.workDir, 'config.yaml'));
      codeEditorTool.command({ ...launch, owner: { uid: 65534, gid: 65534 } });
      expect(readdirSync(elsewhere), 'nothing made through the links').to.deep.equal([]);
      expect(statSync(elsewhere)).to.include({ uid: before.uid, gid: before.gid, mode: before.mode });
      expect(lstatSync(join(launch.workDir, 'user-data')).isDirectory()).to.equal(true);
      expect(lstatSync(join(launch.workDir, 'config.yaml')).isFile()).to.equal(true);
      expect(existsSync(join(launch.workDir, 'user-data', 'User', 'settings.json'))).to.equal(true);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
