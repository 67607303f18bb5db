import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { BlobNotFoundError, InvalidBlobKeyError, type BlobStore } from '#shared/blobs/blobStore.ts';

export async function bytesOf(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Rejects with what `promise` rejected with; fails the test if it resolved. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error as Error,
  );
  if (!outcome) throw new Error('expected a rejection, got a result');
  return outcome;
}

/** A source that yields `first` and then fails, as an upload cut short does. */
function failingSource(first: string): Readable {
  return Readable.from(
    (async function* () {
      yield Buffer.from(first);
      throw new Error('the client went away');
    })(),
  );
}

export const BAD_KEYS: ReadonlyArray<[key: string, reason: RegExp]> = [
  ['', /empty/],
  ['/etc/passwd', /absolute/],
  ['../outside', /contains \.\./],
  ['instances/../../outside', /contains \.\./],
  ['instances/./acme', /contains \./],
  ['instances//acme', /empty name/],
  ['instances/acme/', /empty name/],
  ['instances\\acme', /backslash/],
  ['instances/acme\0.log', /NUL/],
  ['instances/.hidden', /not letters, digits/],
  ['instances/acme dev', /not letters, digits/],
  ['instances/acmé', /not letters, digits/],
  [`instances/${'a'.repeat(600)}`, /longer than 512/],
];

/** The behaviour every blob store adapter must show. `makeStore` gives a fresh, empty store. */
export function blobStoreContract(name: string, makeStore: () => Promise<BlobStore>): void {
  describe(`blob store contract: ${name}`, () => {
    let blobs: BlobStore;
    let base: string;
    beforeEach(async () => {
      blobs = await makeStore();
      base = `contract/${randomUUID()}`;
    });

    it('stores what a stream yields and gives it back, replacing what the key held', async () => {
      await blobs.put(`${base}/a.log`, Readable.from([Buffer.from('one\n'), Buffer.from('two\n')]));
      expect(await bytesOf(await blobs.get(`${base}/a.log`))).to.equal('one\ntwo\n');
      await blobs.put(`${base}/a.log`, Readable.from([Buffer.from('fresh\n')]));
      expect(await bytesOf(await blobs.get(`${base}/a.log`))).to.equal('fresh\n');
    });

    it('reads a range: inclusive ends, to the end without one, nothing past the end', async () => {
      await blobs.put(`${base}/r`, Readable.from([Buffer.from('0123456789')]));
      expect(await bytesOf(await blobs.get(`${base}/r`, { start: 2, end: 4 }))).to.equal('234');
      expect(await bytesOf(await blobs.get(`${base}/r`, { start: 7 }))).to.equal('789');
      expect(await bytesOf(await blobs.get(`${base}/r`, { start: 8, end: 100 }))).to.equal('89');
      expect(await bytesOf(await blobs.get(`${base}/r`, { start: 10 }))).to.equal('');
      expect(await bytesOf(await blobs.get(`${base}/r`, { start: 0, end: 0 }))).to.equal('0');
      for (const range of [{ start: -1 }, { start: 1.5 }, { start: 4, end: 3 }]) {
        expect(await rejectionOf(blobs.get(`${base}/r`, range)), JSON.stringify(range)).to.be.instanceOf(RangeError);
      }
    });

    it('rejects a get of a missing key, or of a folder of keys, with BlobNotFoundError naming the key', async () => {
      const missing = await rejectionOf(blobs.get(`${base}/nothing`));
      expect(missing).to.be.instanceOf(BlobNotFoundError);
      expect((missing as BlobNotFoundError).key).to.equal(`${base}/nothing`);
      await blobs.put(`${base}/folder/inside`, Readable.from([Buffer.from('x')]));
      expect(await rejectionOf(blobs.get(`${base}/folder`))).to.be.instanceOf(BlobNotFoundError);
      expect(await rejectionOf(blobs.get(`${base}/folder/inside/below`, { start: 3 })), 'below a blob').to.be.instanceOf(BlobNotFoundError);
    });

    it('states size and time, null for a missing key or a folder; a replaced blob gets a new generation', async () => {
      const before = Date.now();
      await blobs.put(`${base}/s`, Readable.from([Buffer.from('héllo')]));
      const stat = await blobs.stat(`${base}/s`);
      expect(stat?.size).to.equal(Buffer.byteLength('héllo'));
      expect(stat?.modifiedAt).to.be.instanceOf(Date);
      expect(stat!.modifiedAt.getTime()).to.be.within(before - 2_000, Date.now() + 2_000);
      expect(await blobs.stat(`${base}/missing`)).to.equal(null);
      expect(await blobs.stat(base)).to.equal(null);
      await blobs.put(`${base}/s`, Readable.from([Buffer.from('again')]));
      const replaced = await blobs.stat(`${base}/s`);
      if (stat?.generation !== undefined) expect(replaced?.generation).to.not.equal(stat.generation);
    });

    it('deletes a blob; deleting a missing key or a folder of keys is fine and takes nothing', async () => {
      await blobs.put(`${base}/d/one`, Readable.from([Buffer.from('1')]));
      await blobs.delete(`${base}/d/one`);
      expect(await blobs.stat(`${base}/d/one`)).to.equal(null);
      await blobs.delete(`${base}/d/one`);
      await blobs.delete(`${base}/never/was`);
      await blobs.put(`${base}/kept/two`, Readable.from([Buffer.from('2')]));
      await blobs.delete(`${base}/kept`);
      expect(await blobs.stat(`${base}/kept/two`)).to.deep.include({ size: 1 });
    });

    it('lists the blobs directly in a folder, sorted, without deeper ones, writers not yet committed or missing folders', async () => {
      for (const key of ['mail/b.json', 'mail/a.eml', 'mail/deeper/c', 'mail-2/d']) await blobs.put(`${base}/${key}`, Readable.from([Buffer.from(key)]));
      const pending = await blobs.openWriter(`${base}/mail/e.eml`);
      expect(await blobs.list(`${base}/mail`)).to.deep.equal(['a.eml', 'b.json']);
      await pending.abort();
      expect(await blobs.list(`${base}/never`)).to.deep.equal([]);
      expect((await rejectionOf(blobs.list('../x'))).name).to.equal('InvalidBlobKeyError');
    });

    it('deletes every key under a prefix, never a sibling whose name merely starts the same', async () => {
      for (const key of ['instances/acme/logs/erp.log', 'instances/acme/logs/db.log', 'instances/acme/code/x', 'instances/acme-2/logs/erp.log']) {
        await blobs.put(`${base}/${key}`, Readable.from([Buffer.from(key)]));
      }
      await blobs.deletePrefix(`${base}/instances/acme`);
      for (const key of ['instances/acme/logs/erp.log', 'instances/acme/logs/db.log', 'instances/acme/code/x']) expect(await blobs.stat(`${base}/${key}`), key).to.equal(null);
      expect(await bytesOf(await blobs.get(`${base}/instances/acme-2/logs/erp.log`))).to.equal('instances/acme-2/logs/erp.log');
      await blobs.deletePrefix(`${base}/instances/acme`);
      await blobs.deletePrefix(`${base}/never`);
    });

    it('puts atomically: a source that fails leaves no blob, and the old one whole', async () => {
      const failed = await rejectionOf(blobs.put(`${base}/new`, failingSource('partial')));
      expect(failed.message).to.equal('the client went away');
      expect(await blobs.stat(`${base}/new`)).to.equal(null);
      expect(await rejectionOf(blobs.get(`${base}/new`))).to.be.instanceOf(BlobNotFoundError);
      await blobs.put(`${base}/old`, Readable.from([Buffer.from('the whole old blob')]));
      await rejectionOf(blobs.put(`${base}/old`, failingSource('half a new')));
      expect(await bytesOf(await blobs.get(`${base}/old`))).to.equal('the whole old blob');
    });

    it('shows a writer’s bytes only once committed, and none after an abort', async () => {
      const writer = await blobs.openWriter(`${base}/w`);
      writer.stream.write('streamed ');
      expect(await blobs.stat(`${base}/w`), 'while writing').to.equal(null);
      expect((await rejectionOf(writer.commit())).message).to.match(/before its stream ended/);
      await new Promise<void>((resolve) => writer.stream.end('bytes', resolve));
      expect(await blobs.stat(`${base}/w`), 'ended, not committed').to.equal(null);
      await writer.commit();
      expect(await bytesOf(await blobs.get(`${base}/w`))).to.equal('streamed bytes');
      await writer.abort();
      expect(await blobs.stat(`${base}/w`), 'abort after commit is a no-op').to.deep.include({ size: 14 });

      const dropped = await blobs.openWriter(`${base}/w`);
      dropped.stream.write('never shown');
      await dropped.abort();
      await dropped.abort();
      expect(await bytesOf(await blobs.get(`${base}/w`))).to.equal('streamed bytes');
      const destroyed = await blobs.openWriter(`${base}/gone`);
      destroyed.stream.on('error', () => undefined);
      destroyed.stream.write('cut short');
      destroyed.stream.destroy(new Error('pipeline failed'));
      await destroyed.abort();
      expect(await blobs.stat(`${base}/gone`)).to.equal(null);
    });

    it('refuses keys that are no relative slash path of plain names, in every operation, saying why', async () => {
      for (const [key, reason] of BAD_KEYS) {
        const attempts: Array<Promise<unknown>> = [
          blobs.put(key, Readable.from([Buffer.from('x')])),
          blobs.openWriter(key),
          blobs.get(key),
          blobs.stat(key),
          blobs.delete(key),
          blobs.deletePrefix(key),
        ];
        for (const attempt of attempts) {
          const error = await rejectionOf(attempt);
          expect(error, JSON.stringify(key)).to.be.instanceOf(InvalidBlobKeyError);
          expect(error.message, JSON.stringify(key)).to.match(reason);
        }
      }
    });
  });
}
