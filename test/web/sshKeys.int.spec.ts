import { expect } from 'chai';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

/** The keyring's and the project keys' forms: every refusal re-renders with its reason, or says it in a flash. */
describe('web: the SSH keyring page and a project’s keys', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let viewer: WebSession;
  let developer: WebSession;
  let admin: WebSession;
  let keyId: number;

  before(async () => {
    platform = await startWebPlatform();
    [viewer, developer, admin] = await Promise.all([platform.signedIn('viewer'), platform.signedIn('developer'), platform.signedIn('admin')]);
    expect((await developer.post('/projects', { name: 'Keys Norte' })).status).to.equal(303);
  });
  after(() => platform?.stop());

  it('generates a key for an admin and shows it, with a copy button, to developers; viewers may not see the keyring', async () => {
    const res = await admin.post('/ssh-keys', { mode: 'generate', name: 'norte deploy', key_type: 'ed25519' });
    expect(res.status).to.equal(303);
    expect(res.location).to.match(/^\/ssh-keys#key-(\d+)$/);
    keyId = Number(/key-(\d+)/.exec(res.location ?? '')?.[1]);
    const page = await developer.get('/ssh-keys');
    expect(page.status).to.equal(200);
    expect(page.html).to.match(/<textarea id="public-key-\d+" class="public-key" rows="3" readonly>ssh-ed25519 AAAA\S+ forja:norte-deploy<\/textarea>/);
    expect(page.html).to.include(`data-copy="public-key-${keyId}"`);
    expect(page.html, 'developers get no forms').not.to.include('action="/ssh-keys"');
    expect((await viewer.get('/ssh-keys')).status).to.equal(403);
    expect((await developer.post('/ssh-keys', { mode: 'generate', name: 'dev key' })).status).to.equal(403);
  });

  it('re-renders a refused key with the reason at its field, keeping the name and dropping the pasted text', async () => {
    const taken = await admin.post('/ssh-keys', { mode: 'generate', name: 'NORTE  deploy' });
    expect(taken.status).to.equal(422);
    expect(taken.html).to.match(/id="generate-name-error" class="field-error">a key named NORTE deploy exists already/);
    const pasted = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----';
    const broken = await admin.post('/ssh-keys', { mode: 'paste', name: 'half a key', private_key: pasted });
    expect(broken.status).to.equal(422);
    expect(textOf(broken.html)).to.include('ssh-keygen cannot read this private key').and.include('paste it again');
    expect(broken.html).to.include('value="half a key"');
    expect(broken.html).not.to.include('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE');
    const empty = await admin.post('/ssh-keys', { mode: 'paste', name: 'nothing' });
    expect(empty.status).to.equal(422);
    expect(textOf(empty.html)).to.include('paste a private key, or generate one');
  });

  it('adds the key to the project, refuses a bad choice, removes it, and says so on the page', async () => {
    const refused = await developer.post('/projects/keys-norte/ssh-keys/add', { key_id: 'nope' });
    expect(refused.status).to.equal(422);
    expect(textOf(refused.html)).to.include('choose a key of the keyring');
    const unknown = await developer.post('/projects/keys-norte/ssh-keys/add', { key_id: '424242' });
    expect(unknown.status).to.equal(404);
    expect(textOf(unknown.html)).to.include('no key 424242 in the keyring');

    expect((await developer.post('/projects/keys-norte/ssh-keys/add', { key_id: String(keyId) })).status).to.equal(303);
    expect(textOf((await developer.get('/projects/keys-norte')).html)).to.include('Key added');
    let page = textOf((await viewer.get('/projects/keys-norte')).html);
    expect(page).to.include('norte deploy');
    expect((await developer.post(`/projects/keys-norte/ssh-keys/${keyId}/remove`, {})).status).to.equal(303);
    const again = await developer.post(`/projects/keys-norte/ssh-keys/${keyId}/remove`, {});
    expect(again.status).to.equal(404);
    expect(textOf(again.html)).to.include(`key ${keyId} is not one of this project's keys`);

    expect((await developer.post('/projects/keys-norte/ssh-keys/add', { key_id: String(keyId) })).status).to.equal(303);
    expect((await admin.post(`/ssh-keys/${keyId}/delete`, {})).status).to.equal(303);
    page = textOf((await developer.get('/projects/keys-norte')).html);
    expect(page).to.include('deleted from the keyring').and.include('This project has no key left');
  });

  it('says in a flash when a delete finds nothing, and refuses forgetting a host key that is not pinned', async () => {
    const gone = await admin.post(`/ssh-keys/${keyId}/delete`, {});
    expect(gone.status).to.equal(303);
    const flashed = textOf((await admin.get('/ssh-keys')).html);
    expect(flashed, flashed).to.include(`Nothing was deleted: no key ${keyId} in the keyring`);
    const forget = await admin.post('/projects/keys-norte/host-keys/forget', { host: 'git.example.com', port: '22' });
    expect(forget.status).to.equal(404);
    expect(textOf(forget.html)).to.include('no host key is pinned for git.example.com');
    const verify = await developer.post('/projects/keys-norte/repo/verify', {});
    expect(verify.status).to.equal(422);
    expect(textOf(verify.html)).to.include('the project has no repository to verify');
  });
});
