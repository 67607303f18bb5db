import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import type { UploadKeys } from '#shared/blobs/blobKeys.ts';
import type { BlobStore, BlobWriter } from '#shared/blobs/blobStore.ts';
import { HttpError } from '#shared/http/errors.ts';
import { CSRF_REFUSED, csrfTokenMatches } from '../http/csrf.ts';
import { formatBytes } from '#shared/formatBytes.ts';

export type DumpFormat = 'custom' | 'plain';

/** What an upload form brought: its fields, and which files it stored at the upload's keys. */
export interface ReceivedUpload {
  fields: Record<string, string>;
  dump?: DumpFormat;
  filestore: boolean;
  /** Problems by form field (`dump`, `filestore`, `_form`). */
  errors: Record<string, string>;
}

const HEAD_BYTES = 8 * 1024;

/** A pg_dump custom archive starts with PGDMP; a plain dump is text. Anything else is refused, with a hint when recognisable. */
export function dumpFormatOf(head: Buffer): DumpFormat | { refused: string } {
  if (head.length === 0) return { refused: 'the dump file is empty' };
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'custom';
  const refused = 'not a pg_dump custom or plain SQL file';
  if (head[0] === 0x1f && head[1] === 0x8b) return { refused: `${refused} (it is gzip-compressed: decompress it first)` };
  if (head.subarray(257, 262).toString('latin1') === 'ustar') return { refused: `${refused} (it is a tar archive: use pg_dump -Fc or plain SQL)` };
  // Text: no control characters but tab, newline, form feed and carriage return (any 8-bit encoding).
  const text = head.every((byte) => byte >= 0x20 ? byte !== 0x7f : byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d);
  return text ? 'plain' : { refused };
}

/** A filestore archive is a zip, a tar or a gzip-compressed tar. */
export function isArchive(head: Buffer): boolean {
  const zip = head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05);
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const tar = head.subarray(257, 262).toString('latin1') === 'ustar';
  return zip || gzip || tar;
}

/**
 * Passes a file through to the blob store, judging it by its first bytes and counting it against what the
 * upload may still take. Once judged bad or over the limit it drops the rest (never destroying
 * busboy's stream, which must be read to the end for the form to finish).
 */
function inspector(judge: (head: Buffer) => string | null, budget: { left: number }) {
  const head: Buffer[] = [];
  let headLength = 0;
  let judged = false;
  const result: { refusal?: string; tooLarge?: boolean } = {};
  const decide = () => {
    judged = true;
    result.refusal = judge(Buffer.concat(head)) ?? undefined;
  };
  const stream = new Transform({
    // A throw in here would escape from the file stream's data handler: pass errors to the pipeline.
    transform(chunk: Buffer, _encoding, done) {
      try {
        budget.left -= chunk.length;
        if (budget.left < 0) result.tooLarge = true;
        if (!judged) {
          head.push(chunk);
          headLength += chunk.length;
          if (headLength >= HEAD_BYTES) decide();
        }
        done(null, result.refusal || result.tooLarge ? undefined : chunk);
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done) {
      try {
        if (!judged) decide();
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
  return { stream, result };
}

function judgeDump(head: Buffer, found: (format: DumpFormat) => void): string | null {
  const format = dumpFormatOf(head);
  if (typeof format === 'object') return format.refused;
  found(format);
  return null;
}

/**
 * Streams a multipart upload form into the blob store: the `dump` file to `keys.dump`, the optional
 * `filestore` archive to `keys.filestore`, never holding a file in memory. Only a file that passed
 * is stored; a refused one, or one of a failed form, leaves nothing. `maxBytes` caps both files
 * together. When the CSRF token travels in the body (`csrfInBody`), `_csrf` must come before any
 * file, or nothing is kept and the request is refused with 403.
 */
export function receiveUpload(req: Request, blobs: BlobStore, keys: UploadKeys, maxBytes: number, csrfInBody: boolean): Promise<ReceivedUpload> {
  return new Promise((resolve, reject) => {
    const received: ReceivedUpload = { fields: {}, filestore: false, errors: {} };
    const writes: Array<Promise<void>> = [];
    const writers: BlobWriter[] = [];
    const budget = { left: maxBytes };
    let tokenChecked = !csrfInBody;
    let failed = false;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fileSize: maxBytes, files: 2, fields: 30, fieldSize: 16 * 1024, parts: 40 } });
    } catch (error) {
      // busboy throws at once on a Content-Type it cannot read (multipart/form-data without a boundary).
      return reject(new HttpError(400, `The upload could not be read: ${(error as Error).message}.`));
    }
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      // The form will not finish: drop what the writers took rather than leave their pipelines waiting.
      for (const writer of writers) void writer.abort();
      reject(error);
    };
    /**
     * busboy calls listeners from inside the request stream's data handler: one that throws is an
     * uncaught exception that ends the whole process. Every listener goes through this, so an
     * error fails this upload only.
     */
    const guarded =
      <A extends unknown[]>(listener: (...args: A) => void) =>
      (...args: A): void => {
        try {
          listener(...args);
        } catch (error) {
          fail(error instanceof Error ? error : new Error(String(error)));
        }
      };

    parser.on('field', guarded((name: string, value: string) => {
      if (name === '_csrf' && !tokenChecked) {
        if (!csrfTokenMatches(req, value)) return fail(new HttpError(403, CSRF_REFUSED));
        tokenChecked = true;
      } else if (!(name in received.fields)) received.fields[name] = value;
    }));

    parser.on('file', guarded((name: string, file: Readable, info: { filename: string }) => {
      // A form cut short errors the file being read ("Unexpected end of form"), and the parser too,
      // which fails the upload: a file stream that is only drained would throw it uncaught.
      file.on('error', () => {});
      if (!tokenChecked) {
        file.resume();
        return fail(new HttpError(403, CSRF_REFUSED));
      }
      if ((name !== 'dump' && name !== 'filestore') || !info.filename) return void file.resume();
      const { stream, result } =
        name === 'dump'
          ? inspector((head) => judgeDump(head, (format) => (received.dump = format)), budget)
          : inspector((head) => (isArchive(head) ? null : 'not a .zip, .tar or .tar.gz archive'), budget);
      const cappedAt = () => (file as Readable & { truncated?: boolean }).truncated === true;
      const store = async () => {
        const writer = await blobs.openWriter(name === 'dump' ? keys.dump : keys.filestore).catch((error: unknown) => {
          file.resume();
          throw error;
        });
        writers.push(writer);
        if (failed) {
          file.resume();
          return writer.abort();
        }
        try {
          await pipeline(file, stream, writer.stream);
        } catch (error) {
          await writer.abort();
          throw error;
        }
        if (result.tooLarge || cappedAt()) received.errors[name] = `larger than ${formatBytes(maxBytes)}, the most Forja takes in one upload`;
        else if (result.refusal) received.errors[name] = result.refusal;
        if (received.errors[name]) {
          if (name === 'dump') delete received.dump;
          return writer.abort();
        }
        await writer.commit();
        if (name === 'filestore') received.filestore = true;
      };
      writes.push(store().catch(fail));
    }));

    const limited = (what: string) => () => void (received.errors['_form'] = `the form has too many ${what}`);
    parser.on('partsLimit', limited('parts'));
    parser.on('filesLimit', limited('files'));
    parser.on('fieldsLimit', limited('fields'));
    parser.on('error', guarded((error: Error) => fail(new HttpError(400, `The upload could not be read: ${error.message}.`))));
    parser.on('close', guarded(() => {
      if (failed) return;
      if (!tokenChecked) return fail(new HttpError(403, CSRF_REFUSED));
      Promise.all(writes).then(() => resolve(received), (error: Error) => fail(error));
    }));
    req.on('aborted', guarded(() => fail(new HttpError(400, 'The upload was interrupted.'))));
    req.pipe(parser);
  });
}
