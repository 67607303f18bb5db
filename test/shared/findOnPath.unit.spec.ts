import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { expect } from 'chai';
import { requireTool } from '#shared/local/requiredTool.ts';

const BSDTAR = { command: 'bsdtar', debianPackage: 'libarchive-tools' };

/** What installDebianPackage does for anyone but root: throw the hint, install nothing. */
const notRoot = (_name: string, hint: string): never => {
  throw new Error(hint);
};

describe('requireTool', () => {
  let dir: string;
  let emptyBin: string;
  let toolBin: string;
  let searchPath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'forja-tool-'));
    emptyBin = join(dir, 'empty');
    toolBin = join(dir, 'bin');
    mkdirSync(emptyBin);
    mkdirSync(toolBin);
    searchPath = ['', emptyBin, toolBin].join(delimiter);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const placeTool = (mode = 0o755) => writeFileSync(join(toolBin, 'bsdtar'), '#!/bin/sh\n', { mode });

  it('returns the tool’s path when it is on PATH, installing nothing', () => {
    placeTool();
    const installs: string[] = [];
    expect(requireTool(BSDTAR, { searchPath, installPackage: (name) => installs.push(name) })).to.equal(join(toolBin, 'bsdtar'));
    expect(installs).to.deep.equal([]);
  });

  it('fails with one line naming the package when the tool is missing and may not be installed', () => {
    placeTool(0o644); // a file that is not executable does not count
    expect(() => requireTool(BSDTAR, { searchPath, installPackage: notRoot })).to.throw(Error, /^bsdtar is missing: install the Debian package libarchive-tools$/);
  });

  it('installs the package when the tool is missing, then returns its path', () => {
    const installs: string[] = [];
    const install = (name: string) => {
      installs.push(name);
      placeTool();
    };
    expect(requireTool(BSDTAR, { searchPath, installPackage: install })).to.equal(join(toolBin, 'bsdtar'));
    expect(installs).to.deep.equal(['libarchive-tools']);
  });

  it('fails naming the package when the install leaves the tool off PATH', () => {
    expect(() => requireTool(BSDTAR, { searchPath, installPackage: () => undefined })).to.throw(
      Error,
      /^bsdtar is missing: the Debian package libarchive-tools is installed but puts no bsdtar on PATH$/,
    );
  });
});
