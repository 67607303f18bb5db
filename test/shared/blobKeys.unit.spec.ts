import { expect } from 'chai';
import { instanceLogKey, instancePrefix, uploadKeys, type LogSource } from '#shared/blobs/blobKeys.ts';
import { assertBlobKey } from '#shared/blobs/blobStore.ts';

const UPLOAD_ID = '0b8e0f6e-3c1f-4d5a-9a57-3f1c2b7d9e10';

describe('blob keys', () => {
  it('lay instances and uploads out as FORJA_DATA_DIR always had them', () => {
    expect(instancePrefix('acme-dev')).to.equal('instances/acme-dev');
    expect(instanceLogKey('acme-dev', 'erp')).to.equal('instances/acme-dev/logs/erp.log');
    expect(instanceLogKey('acme-dev', 'db')).to.equal('instances/acme-dev/logs/db.log');
    expect(uploadKeys(UPLOAD_ID)).to.deep.equal({ prefix: `uploads/${UPLOAD_ID}`, dump: `uploads/${UPLOAD_ID}/dump`, filestore: `uploads/${UPLOAD_ID}/filestore` });
    for (const key of [instancePrefix('acme-dev'), instanceLogKey('a', 'erp'), ...Object.values(uploadKeys(UPLOAD_ID))]) expect(assertBlobKey(key)).to.equal(key);
  });

  it('refuse what is no slug, upload id or log source', () => {
    for (const slug of ['', 'Acme', '../x', 'acme/dev', '-acme', `a${'b'.repeat(64)}`]) expect(() => instancePrefix(slug), slug).to.throw(/not a valid instance slug/);
    expect(() => instanceLogKey('acme', 'nginx' as LogSource)).to.throw(/not a log source/);
    for (const id of ['', 'x', UPLOAD_ID.toUpperCase(), `${UPLOAD_ID}/..`]) expect(() => uploadKeys(id), id).to.throw(/not a valid upload id/);
  });
});
