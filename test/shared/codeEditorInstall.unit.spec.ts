import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { codeEditorInstalled, installCodeEditor } from '#shared/local/codeEditorInstall.ts';

describe('the code editor npm start builds when a plain npm install left it out', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'forja-code-editor-install-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('counts as installed only once code-server’s own VS Code modules are built', () => {
    expect(codeEditorInstalled(root)).to.equal(false);
    mkdirSync(join(root, 'node_modules', 'code-server', 'lib', 'vscode'), { recursive: true });
    expect(codeEditorInstalled(root), 'unpacked, its postinstall not run').to.equal(false);
    mkdirSync(join(root, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules'));
    expect(codeEditorInstalled(root)).to.equal(true);
  });

  it('does nothing when it is there', () => {
    mkdirSync(join(root, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules'), { recursive: true });
    expect(installCodeEditor(root)).to.deep.equal({ installed: false });
  });

  it('says how to install it instead of building it when not root', function () {
    if (process.getuid?.() === 0) this.skip(); // as root it would really run npm install
    expect(installCodeEditor(root)).to.deep.equal({ reason: 'not root: install it as the README\'s "Code editor" says' });
  });
});
