import { Readable } from 'node:stream';
import { expect } from 'chai';
import { caughtMailKeys, instanceLogKey } from '#shared/blobs/blobKeys.ts';
import { createFsBlobStore, type FsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { purgeInstanceFiles } from '#services/executor/purgeInstance.ts';
import { jobPlayer } from '#test/support/instanceJobs.ts';
import { runDir } from '#test/support/runDir.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';

const put = (blobs: FsBlobStore, key: string, text: string) => blobs.put(key, Readable.from([Buffer.from(text)]));

describe('purging an instance’s files', function () {
  this.timeout(60_000);

  it('deletes the instance’s folder, whatever is in it, and its caught mail, and nothing of another instance; again is fine', async () => {
    const blobs = createFsBlobStore(runDir('purge'));
    const mail = caughtMailKeys('acme-dev', '20261128T100000000Z-0a0b0c0d');
    const othersMail = caughtMailKeys('acme-dev-2', '20261128T100000000Z-0a0b0c0d');
    await put(blobs, mail.raw, 'Subject: reset\r\n\r\nsecret link');
    await put(blobs, othersMail.raw, 'Subject: the other one\r\n\r\n');
    await put(blobs, instanceLogKey('acme-dev', 'erp'), 'INFO started\n');
    await put(blobs, instanceLogKey('acme-dev', 'db'), 'created database\n');
    await put(blobs, 'instances/acme-dev/erp-server.pid', '{}');
    await put(blobs, instanceLogKey('acme-dev-2', 'erp'), 'INFO the other one\n');
    await purgeInstanceFiles(blobs, 'acme-dev');
    for (const key of [instanceLogKey('acme-dev', 'erp'), instanceLogKey('acme-dev', 'db'), 'instances/acme-dev/erp-server.pid', mail.raw]) expect(await blobs.stat(key), key).to.equal(null);
    expect(await blobs.stat(instanceLogKey('acme-dev-2', 'erp'))).to.not.equal(null);
    expect(await blobs.stat(othersMail.raw)).to.not.equal(null);
    await purgeInstanceFiles(blobs, 'acme-dev');
  });

  it('refuses what is no slug before deleting anything', async () => {
    const blobs = createFsBlobStore(runDir('purge'));
    await put(blobs, instanceLogKey('acme', 'erp'), 'x\n');
    for (const slug of ['', '..', 'acme/..', '../instances']) {
      const refused = await purgeInstanceFiles(blobs, slug).then(() => null, (error: Error) => error);
      expect(refused?.message, slug).to.match(/not a valid instance slug/);
    }
    expect(await blobs.stat(instanceLogKey('acme', 'erp'))).to.not.equal(null);
  });

  describe('after an admin purges destroyed instances', () => {
    let platform: WebPlatform;
    before(async () => (platform = await startWebPlatform()));
    after(() => platform?.stop());

    it('the control-plane dropped the records but left the logs: they are the executor’s to delete', async () => {
      const player = jobPlayer(platform);
      const developer = await platform.signedIn('developer');
      const created = await developer.post('/instances', { name: 'Purged', project: 'Purgers', erp_version: '17.0' });
      expect(created.status).to.equal(303);
      const slug = created.location!.replace('/instances/', '');
      await player.run(slug);
      const blobs = createFsBlobStore(platform.config.FORJA_DATA_DIR);
      await put(blobs, instanceLogKey(slug, 'erp'), 'INFO why it ended\n');
      expect((await developer.post(`/instances/${slug}/action`, { action: 'destroy' })).status).to.equal(303);
      await player.run(slug);
      const admin = await platform.signedIn('admin');
      expect((await admin.post('/instances/purge', {})).status).to.equal(303);
      expect((await admin.get(`/instances/${slug}`)).status, 'the record').to.equal(404);
      expect(await blobs.stat(instanceLogKey(slug, 'erp')), 'the log, until the executor purges').to.deep.include({ size: 18 });
      await purgeInstanceFiles(blobs, slug);
      expect(await blobs.stat(instanceLogKey(slug, 'erp'))).to.equal(null);
    });
  });
});
