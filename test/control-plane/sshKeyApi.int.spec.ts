import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

type Issue = { loc: Array<string | number>; msg: string };
interface KeyOut {
  id: number;
  name: string;
  type: string;
  bits: number;
  fingerprint: string;
  public_key: string;
  projects: string[];
}

const validKey = schemaValidator('api/SshKeyOut.v1.json');
const validProjectKeys = schemaValidator('api/ProjectKeysOut.v1.json');

describe('SSH keyring API: keys sealed in secrets, facts in events', function () {
  this.timeout(90_000);
  let platform: TestPlatform;
  let dir: string;
  let pasted: { text: string; fingerprint: string };

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser('admin@example.com', 'admin');
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
    dir = mkdtempSync(join(tmpdir(), 'forja-keyapi-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'open sesame', '-f', join(dir, 'user')]);
    pasted = {
      text: readFileSync(join(dir, 'user'), 'utf8'),
      fingerprint: execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'user.pub')], { encoding: 'utf8' }).split(' ')[1] ?? '',
    };
  });
  after(async () => {
    await platform?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (path: string, init: RequestInit & { as?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', basic(init.as ?? 'admin@example.com'));
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${platform.urls.controlPlane}${path}`, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  };
  const createKey = (json: unknown, as?: string) => call('/api/v1/ssh-keys', { method: 'POST', json, ...(as ? { as } : {}) });
  const createProject = async (name: string) => {
    const response = await call('/api/v1/projects', { method: 'POST', json: { name } });
    expect(response.status).to.equal(201);
    return ((await response.json()) as { slug: string }).slug;
  };

  /** Every event of the store, as text: what a dump of the event store would show. */
  async function allEventsText(): Promise<string> {
    const events = await platform.infra.store.readAll({ after: 0, limit: 100_000 });
    return JSON.stringify(events);
  }

  it('generates an ed25519 key for an admin and lists it for developers, with its public key and no private key', async () => {
    const response = await createKey({ name: 'Acme deploy', generate: true });
    expect(response.status).to.equal(201);
    const key = (await response.json()) as KeyOut;
    expect(validKey(key), describeErrors(validKey)).to.equal(true);
    expect(key).to.include({ name: 'Acme deploy', type: 'ed25519', bits: 256 });
    expect(key.public_key).to.match(/^ssh-ed25519 AAAA\S+ forja:Acme-deploy$/);
    const listed = (await (await call('/api/v1/ssh-keys', { as: 'dev@example.com' })).json()) as KeyOut[];
    expect(listed.map((row) => row.name)).to.include('Acme deploy');
    expect(JSON.stringify(listed)).not.to.include('PRIVATE KEY');
    const sealed = await platform.infra.db.withSchema('secrets').selectFrom('ssh_keys' as never).selectAll().execute();
    expect(JSON.stringify(sealed)).not.to.include('PRIVATE KEY');
  });

  it('takes a pasted key with its passphrase; the private key is in no event and no answer', async () => {
    const response = await createKey({ name: 'customer key', private_key: pasted.text, passphrase: 'open sesame' });
    expect(response.status).to.equal(201);
    const key = (await response.json()) as KeyOut;
    expect(key.fingerprint).to.equal(pasted.fingerprint);
    const body = pasted.text.split('\n')[1] ?? '';
    expect(body.length).to.be.greaterThan(40);
    const events = await allEventsText();
    expect(events).to.include(pasted.fingerprint);
    expect(events).not.to.include(body);
    expect(events).not.to.include('PRIVATE KEY');
    expect(events).not.to.include('open sesame');
  });

  it('refuses bad keys with 422 saying what was wrong, never echoing the pasted text', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ name: 'k1', private_key: pasted.text }, 'passphrase', /protected by a passphrase/],
      [{ name: 'k2', private_key: pasted.text, passphrase: 'nope' }, 'passphrase', /passphrase does not open/],
      [{ name: 'k3', private_key: pasted.text.slice(0, 120) }, 'private_key', /not a private key/],
      [{ name: 'k4', private_key: readFileSync(join(dir, 'user.pub'), 'utf8') }, 'private_key', /public key/],
      [{ name: 'k5' }, 'private_key', /paste a private key, or generate one/],
      [{ name: 'k6', generate: true, private_key: pasted.text }, 'private_key', /not both/],
      [{ name: 'k7', key_type: 'rsa', private_key: pasted.text, passphrase: 'open sesame' }, 'key_type', /generated key only/],
      [{ name: '   ', generate: true }, 'name', /name is required/],
    ];
    for (const [json, field, message] of cases) {
      const response = await createKey(json);
      const text = await response.text();
      expect(response.status, text).to.equal(422);
      const issues = (JSON.parse(text) as { detail: Issue[] }).detail;
      expect(issues[0]?.loc).to.deep.equal(['body', field]);
      expect(issues[0]?.msg).to.match(message);
      expect(text).not.to.include(pasted.text.split('\n')[1] ?? '');
    }
    const schemaRefusal = await createKey({ name: 'x', generate: true, key_type: 'dsa' });
    expect(schemaRefusal.status).to.equal(422);
  });

  it('keeps names unique (case and spaces folded) and frees a name when its key is deleted', async () => {
    const first = await createKey({ name: 'Shared  Name', generate: true });
    expect(first.status).to.equal(201);
    const again = await createKey({ name: 'shared name', generate: true });
    expect(again.status).to.equal(422);
    expect(((await again.json()) as { detail: Issue[] }).detail[0]?.msg).to.match(/a key named shared name exists already/);
    const { id } = (await first.json()) as KeyOut;
    expect((await call(`/api/v1/ssh-keys/${id}`, { method: 'DELETE' })).status).to.equal(204);
    expect((await createKey({ name: 'shared name', generate: true })).status).to.equal(201);
  });

  it('refuses keyring changes to developers and viewers, and reading it to viewers', async () => {
    expect((await createKey({ name: 'dev key', generate: true }, 'dev@example.com')).status).to.equal(403);
    expect((await call('/api/v1/ssh-keys', { as: 'viewer@example.com' })).status).to.equal(403);
    expect((await call('/api/v1/ssh-keys/1', { method: 'DELETE', as: 'dev@example.com' })).status).to.equal(403);
  });

  it('gives keys to a project, removes one (it stays in the keyring), and leaves projects without a deleted key', async () => {
    const slug = await createProject('Taller Keys');
    const a = (await (await createKey({ name: 'deploy a', generate: true })).json()) as KeyOut;
    const b = (await (await createKey({ name: 'deploy b', generate: true })).json()) as KeyOut;
    for (const key of [a, b]) {
      const added = await call(`/api/v1/projects/${slug}/ssh-keys`, { method: 'POST', json: { key_id: key.id }, as: 'dev@example.com' });
      expect(added.status).to.equal(200);
    }
    const again = await call(`/api/v1/projects/${slug}/ssh-keys`, { method: 'POST', json: { key_id: a.id } });
    expect(again.status, 'adding twice changes nothing').to.equal(200);
    let keys = (await (await call(`/api/v1/projects/${slug}/ssh-keys`, { as: 'viewer@example.com' })).json()) as { keys: Array<{ id: number; deleted: boolean; public_key: string | null }> };
    expect(validProjectKeys(keys), describeErrors(validProjectKeys)).to.equal(true);
    expect(keys.keys.map((key) => key.id)).to.deep.equal([a.id, b.id]);
    const listed = (await (await call('/api/v1/ssh-keys')).json()) as KeyOut[];
    expect(listed.find((key) => key.id === a.id)?.projects).to.deep.equal([slug]);

    expect((await call(`/api/v1/projects/${slug}/ssh-keys/${b.id}`, { method: 'DELETE', as: 'dev@example.com' })).status).to.equal(200);
    expect(((await (await call('/api/v1/ssh-keys')).json()) as KeyOut[]).some((key) => key.id === b.id), 'b stays in the keyring').to.equal(true);

    expect((await call(`/api/v1/ssh-keys/${a.id}`, { method: 'DELETE' })).status).to.equal(204);
    keys = (await (await call(`/api/v1/projects/${slug}/ssh-keys`)).json()) as typeof keys;
    expect(keys.keys).to.deep.equal([{ id: a.id, name: 'deploy a', fingerprint: a.fingerprint, public_key: null, deleted: true }]);
    const shredded = await platform.infra.db.withSchema('secrets').selectFrom('ssh_keys' as never).selectAll().where('key_id' as never, '=', a.id as never).execute();
    expect(shredded, 'the sealed key is gone').to.deep.equal([]);
  });

  it('answers 404 for unknown projects and keys, 422 for malformed ids and bodies', async () => {
    const slug = await createProject('Taller Refusals');
    expect((await call(`/api/v1/projects/${slug}/ssh-keys`, { method: 'POST', json: { key_id: 999_999 } })).status).to.equal(404);
    expect((await call(`/api/v1/projects/no-such/ssh-keys`, { method: 'POST', json: { key_id: 1 } })).status).to.equal(404);
    expect((await call(`/api/v1/projects/${slug}/ssh-keys/12`, { method: 'DELETE' })).status).to.equal(404);
    expect((await call(`/api/v1/projects/${slug}/ssh-keys/abc`, { method: 'DELETE' })).status).to.equal(422);
    expect((await call(`/api/v1/ssh-keys/0`, { method: 'DELETE' })).status).to.equal(422);
    expect((await call(`/api/v1/ssh-keys/99999`, { method: 'DELETE' })).status).to.equal(404);
    expect((await call(`/api/v1/projects/${slug}/ssh-keys`, { method: 'POST', json: { key_id: 'one' } })).status).to.equal(422);
    expect((await call(`/api/v1/projects/${slug}/host-keys/forget`, { method: 'POST', json: { host: 'git.example.com' } })).status).to.equal(404);
    expect((await call(`/api/v1/projects/${slug}/host-keys/forget`, { method: 'POST', json: { host: 'git.example.com' }, as: 'dev@example.com' })).status).to.equal(403);
    const noRepo = await call(`/api/v1/projects/${slug}/repo/verify`, { method: 'POST', as: 'dev@example.com' });
    expect(noRepo.status).to.equal(422);
    expect(JSON.stringify(await noRepo.json())).to.match(/no repository to verify/);
    expect((await call(`/api/v1/projects/${slug}/repo/verify`, { method: 'POST', as: 'viewer@example.com' })).status).to.equal(403);
  });
});
