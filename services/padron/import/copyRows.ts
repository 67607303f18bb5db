import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { PadronRecord, RegimeCode } from '../parse/padronRecord.ts';
import { dateField, numericField } from './binaryFields.ts';

/** Columns of a rates table in the order `add` writes them. */
export const COPY_COLUMNS = 'cuit, regime, aliquot, date_from, date_to, kind, grp, line';
/** The COPY options matching what this writer produces. */
export const COPY_FORMAT = 'format binary';

/** Bytes per chunk handed to the COPY stream: few writes, bounded memory. */
const CHUNK_BYTES = 256 * 1024;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const FIELDS = 8;

/**
 * Encodes records in PostgreSQL's binary COPY format straight into byte buffers and hands full
 * chunks to the COPY stream, waiting for `drain` when PostgreSQL is slower than the parser (the
 * backpressure that keeps an import's memory flat whatever the file size). Binary because the one
 * COPY backend is the import's limit (PERFORMANCE.md) and reading binary dates and numerics costs
 * it a fraction of parsing their text; the few distinct dates and rates are encoded once each.
 * Also keeps what the load report needs: rows, regimes and the validity period.
 */
export class CopyRowWriter {
  rows = 0;
  validFrom: string | null = null;
  validTo: string | null = null;
  private regimeBits = 0;
  private buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;
  private readonly full: Buffer[] = [];
  private failure: Error | undefined;

  constructor(private readonly stream: Writable) {
    // PostgreSQL may refuse a row between two writes; keep the error for the next flush instead of crashing.
    stream.on('error', (error: Error) => (this.failure ??= error));
    SIGNATURE.copy(this.buffer, 0);
    this.buffer.fill(0, SIGNATURE.length, SIGNATURE.length + 8); // flags, header extension length
    this.at = SIGNATURE.length + 8;
  }

  /** Adds one row; true when chunks are waiting and the caller should `await flush()` soon. */
  add(record: PadronRecord, line: number): boolean {
    const { dateFrom, dateTo, kind, group } = record;
    const aliquot = numericField(record.aliquot);
    const longest = 80 + aliquot.length + 3 * ((kind?.length ?? 0) + (group?.length ?? 0));
    if (this.at + longest > this.buffer.length) this.rotate(longest);
    const buffer = this.buffer;
    let at = this.at;
    buffer[at++] = 0;
    buffer[at++] = FIELDS;
    at = writeInt64Field(buffer, at, record.cuit);
    at = writeLength(buffer, at, 1);
    buffer[at++] = record.regime === 'P' ? 80 : 82;
    at = writeLength(buffer, at, aliquot.length);
    aliquot.copy(buffer, at);
    at += aliquot.length;
    at = dateFrom === null ? writeLength(buffer, at, -1) : writeInt32Field(buffer, at, dateField(dateFrom));
    at = dateTo === null ? writeLength(buffer, at, -1) : writeInt32Field(buffer, at, dateField(dateTo));
    at = kind === null ? writeLength(buffer, at, -1) : writeTextField(buffer, at, kind);
    at = group === null ? writeLength(buffer, at, -1) : writeTextField(buffer, at, group);
    at = writeInt32Field(buffer, at, line);
    this.at = at;

    this.rows++;
    this.regimeBits |= record.regime === 'P' ? 1 : 2;
    if (dateFrom !== null && (this.validFrom === null || dateFrom < this.validFrom)) this.validFrom = dateFrom;
    if (dateTo !== null && (this.validTo === null || dateTo > this.validTo)) this.validTo = dateTo;
    return this.full.length > 0;
  }

  /** Writes the full chunks; resolves once the stream can take more. */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    let ready = true;
    for (const chunk of this.full.splice(0)) ready = this.stream.write(chunk);
    if (!ready) await once(this.stream, 'drain');
  }

  /** Writes the trailer, flushes everything and ends the COPY; resolves when PostgreSQL has every row. */
  async end(): Promise<void> {
    if (this.at + 2 > this.buffer.length) this.rotate(2);
    this.buffer[this.at++] = 0xff;
    this.buffer[this.at++] = 0xff;
    this.rotate(0);
    await this.flush();
    if (this.failure) throw this.failure;
    const finished = once(this.stream, 'finish');
    this.stream.end();
    await finished;
  }

  get regimes(): RegimeCode[] {
    return [...(this.regimeBits & 1 ? ['P' as const] : []), ...(this.regimeBits & 2 ? ['R' as const] : [])];
  }

  private rotate(needed: number): void {
    if (this.at > 0) this.full.push(this.buffer.subarray(0, this.at));
    this.buffer = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, needed));
    this.at = 0;
  }
}

/*
 * Big-endian integers stored byte by byte: typed-array stores wrap modulo 256 by themselves, and
 * this beats Buffer.writeInt32BE's argument checks at two dozen calls per row.
 */
function writeLength(buffer: Buffer, at: number, length: number): number {
  buffer[at] = length >>> 24;
  buffer[at + 1] = length >>> 16;
  buffer[at + 2] = length >>> 8;
  buffer[at + 3] = length;
  return at + 4;
}

function writeInt32Field(buffer: Buffer, at: number, value: number): number {
  return writeLength(buffer, writeLength(buffer, at, 4), value);
}

/** A non-negative integer below 2^53 as int8 (CUITs need more than 32 bits). */
function writeInt64Field(buffer: Buffer, at: number, value: number): number {
  const high = Math.floor(value / 0x1_0000_0000);
  return writeLength(buffer, writeLength(buffer, writeLength(buffer, at, 8), high), value - high * 0x1_0000_0000);
}

/** Metadata text as UTF-8 (binary COPY needs no escaping). */
function writeTextField(buffer: Buffer, at: number, text: string): number {
  const start = at + 4;
  let end = start;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128) {
      end = start + buffer.write(text, start, 'utf8');
      break;
    }
    buffer[end++] = code;
  }
  writeLength(buffer, at, end - start);
  return end;
}
