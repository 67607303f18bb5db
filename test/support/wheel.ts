import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { storedZip } from './storedZip.ts';

const digest = (content: Buffer) => `sha256=${createHash('sha256').update(content).digest('base64url')}`;

/**
 * A minimal pure-Python wheel (`<name>-<version>-py3-none-any.whl`) written into `folder`, made by
 * hand so a test needs no network and no setuptools: the package `<name>/__init__.py` and the
 * `.dist-info` files pip reads (METADATA, WHEEL, RECORD with each file's hash). Returns its path.
 */
export function writeWheel(folder: string, name: string, version: string): string {
  const info = `${name}-${version}.dist-info`;
  const files: Array<[string, Buffer]> = [
    [`${name}/__init__.py`, Buffer.from(`__version__ = '${version}'\n`)],
    [`${info}/METADATA`, Buffer.from(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`)],
    [`${info}/WHEEL`, Buffer.from('Wheel-Version: 1.0\nGenerator: forja-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n')],
  ];
  const record = [...files.map(([path, content]) => `${path},${digest(content)},${content.length}`), `${info}/RECORD,,`, ''].join('\n');
  const path = join(folder, `${name}-${version}-py3-none-any.whl`);
  writeFileSync(path, storedZip([...files, [`${info}/RECORD`, Buffer.from(record)]]));
  return path;
}
