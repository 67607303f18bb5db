import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { expect } from 'chai';
import { findOnPath } from '#shared/local/findOnPath.ts';

describe('findOnPath', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'forja-tool-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the first executable of that name on a PATH-style list, skipping empty entries and files that are not executable', () => {
    const [first, second] = [join(dir, 'first'), join(dir, 'second')];
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(join(first, 'bsdtar'), '#!/bin/sh\n', { mode: 0o644 });
    writeFileSync(join(second, 'bsdtar'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findOnPath('bsdtar', ['', first, second].join(delimiter))).to.equal(join(second, 'bsdtar'));
    expect(findOnPath('unar', ['', first, second].join(delimiter))).to.equal(undefined);
  });
});
