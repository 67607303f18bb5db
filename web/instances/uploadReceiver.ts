import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import type { UploadKeys } from '#shared/blobs/blobKeys.ts';
import type { BlobStore, BlobWriter } from '#shared/blobs/blobStore.ts';
import { HttpError } from '#shared/http/errors.ts';
import { CSRF_REFUSED, csrfTokenMatches } from '../http/csrf.ts';
import { formatBytes } from '#shared/formatBytes.ts';
import { erpBackupContents, type ErpBackupContents } from './erpBackupZip.ts';
import { clientFileName, dumpFormatOf, isArchive, isZip, type DumpFormat, type UploadDumpFormat } from './uploadFormats.ts';
import { inspector } from './uploadInspector.ts';

export { dumpFormatOf, isArchive, type DumpFormat } from './uploadFormats.ts';

/** A file the upload stored: the name the browser gave it (sanitized, for people), and what was stored. */
export interface StoredFile {
  name: string;
  bytes: number;
  /** Hex sha256 of the stored bytes, computed as they streamed through. */
  sha256: string;
}

/** What an upload form brought: its fields, and which files it stored at the upload's keys. */
export interface ReceivedUpload<Format extends UploadDumpFormat = DumpFormat> {
  fields: Record<string, string>;
  dump?: Format;
  filestore: boolean;
  /** The stored files by form field. */
  files: { dump?: StoredFile; filestore?: StoredFile };
  /** What the dump holds when it is an ERP backup `.zip`. */
  backup?: ErpBackupContents;
  /** Problems by form field (`dump`, `filestore`, `_form`). */
  errors: Record<string, string>;
}

export interface UploadOptions {
  /** Takes an ERP backup `.zip` as the dump (migrations); instances refuse it. */
  zipDump?: boolean;
}

function judgeDump(head: Buffer, zipDump: boolean, found: (format: UploadDumpFormat) => void): string | null {
  const format = zipDump && isZip(head) ? 'zip' : dumpFormatOf(head);
  if (typeof format === 'object') return format.refused;
  found(format);
  return null;
}

/**
 * Streams a multipart upload form into the blob store: the `dump` file to `keys.dump`, the optional
 * `filestore` archive to `keys.filestore`, never holding a file in memory. Only a file that passed
 * is stored; a refused one, or one of a failed form, leaves nothing. `maxBytes` caps both files
 * together. When the CSRF token travels in the body (`csrfInBody`), `_csrf` must come before any
 * file, or nothing is kept and the request is refused with 403. Each stored file is reported with
 * its client name, size and sha256; with `zipDump` the dump may be an ERP backup `.zip`, kept only
 * when it holds a `dump.sql`.
 */
export function receiveUpload(req: Request, blobs: BlobStore, keys: UploadKeys, maxBytes: number, csrfInBody: boolean): Promise<ReceivedUpload>;
export function receiveUpload(req: Request, blobs: BlobStore, keys: UploadKeys, maxBytes: number, csrfInBody: boolean, options: UploadOptions): Promise<ReceivedUpload<UploadDumpFormat>>;
export function receiveUpload(req: Request, blobs: BlobStore, keys: UploadKeys, maxBytes: number, csrfInBody: boolean, options: UploadOptions = {}): Promise<ReceivedUpload<UploadDumpFormat>> {
  return new Promise((resolve, reject) => {
    const received: ReceivedUpload<UploadDumpFormat> = { fields: {}, filestore: false, files: {}, errors: {} };
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
      const { stream, result, sha256 } =
        name === 'dump'
          ? inspector((head) => judgeDump(head, options.zipDump === true, (format) => (received.dump = format)), budget)
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
        const key = name === 'dump' ? keys.dump : keys.filestore;
        if (name === 'dump' && received.dump === 'zip') {
          // Judged only once whole: a ZIP says what it holds at its end.
          const contents = await erpBackupContents(blobs, key, result.bytes);
          if ('refused' in contents) {
            received.errors[name] = contents.refused;
            delete received.dump;
            return blobs.delete(key);
          }
          received.backup = contents;
        }
        received.files[name] = { name: clientFileName(info.filename, name), bytes: result.bytes, sha256: sha256() };
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
