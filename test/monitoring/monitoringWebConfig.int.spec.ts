import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { writeMonitoringWebFiles } from '#services/monitoring/monitoringWebConfig.ts';
import { monitoringAuthorization, monitoringSecret } from '#shared/monitoring/monitoringSecret.ts';

/** Checks a bcrypt hash as libcrypt does (the same algorithm exporter-toolkit's golang.org/x/crypto/bcrypt runs). */
const verifies = (password: string, hash: string) =>
  execFileSync('/usr/bin/python3', ['-W', 'ignore', '-c', 'import crypt, sys; h = sys.argv[1]; print(crypt.crypt(sys.stdin.read(), h) == h)', hash], { input: password, encoding: 'utf8' }).trim() === 'True';

describe('the monitoring secret and the tools\' web configuration', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'forja-monitoring-web-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('derives one secret per master key, sent as Basic forja:<secret>', () => {
    expect(monitoringSecret('key one')).to.equal(monitoringSecret('key one')).and.not.equal(monitoringSecret('key two'));
    expect(Buffer.from(monitoringAuthorization('key one').replace(/^Basic /, ''), 'base64').toString()).to.equal(`forja:${monitoringSecret('key one')}`);
  });

  it('writes a bcrypt hash (cost 10) of the secret, never the secret, and the scrape password file, both 0600 even over older files', () => {
    const secret = monitoringSecret('key one');
    writeFileSync(join(dir, 'web-config.yml'), 'old', { mode: 0o644 });
    const files = writeMonitoringWebFiles(dir, secret, {});
    const config = readFileSync(files.webConfigFile, 'utf8');
    expect(config).to.not.include(secret);
    const hash = (parse(config) as { basic_auth_users: Record<string, string> }).basic_auth_users['forja']!;
    expect(hash).to.match(/^\$2b\$10\$/);
    expect(verifies(secret, hash)).to.equal(true);
    expect(verifies('guessed', hash)).to.equal(false);
    expect(readFileSync(files.passwordFile, 'utf8')).to.equal(secret);
    for (const file of [files.webConfigFile, files.passwordFile]) expect(statSync(file).mode & 0o777, file).to.equal(0o600);
  });
});
