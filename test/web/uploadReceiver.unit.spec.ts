import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { Request } from 'express';
import { uploadKeys } from '#shared/blobs/blobKeys.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { receiveUpload } from '#web/instances/uploadReceiver.ts';

const BOUNDARY = 'forja-test-boundary';

function multipart(parts: Array<[name: string, value: string, filename?: string]>): Buffer {
  const body = parts.map(([name, value, filename]) =>
    [`--${BOUNDARY}`, `Content-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`, '', value].join('\r\n'),
  );
  return Buffer.from(`${body.join('\r\n')}\r\n--${BOUNDARY}--\r\n`);
}

/** A request streaming `body` whose session cannot be read: whatever a listener asks of it throws. */
function requestWithBrokenSession(body: Buffer): Request {
  const req = Readable.from([body]) as unknown as Request;
  Object.assign(req, { headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) } });
  Object.defineProperty(req, 'session', {
    get() {
      throw new Error('the session store failed');
    },
  });
  return req;
}

describe('web: the upload receiver’s stream listeners (issue 10, item 3)', () => {
  it('turns an error thrown in a listener into a refusal of this upload, not an uncaught exception', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forja-upload-'));
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    const mochaListeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', record);
    try {
      const req = requestWithBrokenSession(multipart([['_csrf', 'whatever'], ['dump', 'SELECT 1;', 'a.sql']]));
      const outcome = await Promise.race([
        receiveUpload(req, createFsBlobStore(dir), uploadKeys(randomUUID()), 1024 * 1024, true).then(
          () => 'accepted',
          (error: Error) => error.message,
        ),
        new Promise((resolve) => setTimeout(() => resolve('never settled'), 2_000)),
      ]);
      expect(outcome).to.equal('the session store failed');
      expect(uncaught).to.deep.equal([]);
      expect(readdirSync(dir)).to.deep.equal([]);
    } finally {
      process.removeListener('uncaughtException', record);
      for (const listener of mochaListeners) process.on('uncaughtException', listener);
    }
  });
});
