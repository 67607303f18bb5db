import { Buffer, isAscii, isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

/**
 * `auto` reads UTF-8 when the bytes are valid UTF-8, Windows-1252 otherwise. A UTF-8 BOM alone does
 * not decide: FORMATS.md reports BOMs in front of Latin-1 files, and Latin-1 text with accents is
 * practically never valid UTF-8, while UTF-8 text always is.
 */
export type PadronEncoding = 'auto' | 'utf-8' | 'windows-1252';

/** Turns a byte stream's chunks into text; `end()` flushes a UTF-8 sequence cut at the last chunk. */
export interface ChunkDecoder {
  decode(chunk: Uint8Array): string;
  end(): string;
}

const BOM = [0xef, 0xbb, 0xbf] as const;

// Windows-1252 differs from Latin-1 only in 0x80–0x9F; the five undefined bytes stay as they are.
const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
const C1_TEST = /[\x80-\x9f]/;
const C1_ALL = /[\x80-\x9f]/g;

/**
 * A decoder for one file. Chunk-level work only (native scans and slices, no per-byte JS loop on
 * the common path): pure-ASCII chunks, the bulk of every padrón, are decoded as Latin-1, the
 * fastest decoding V8 has. The first chunk with other bytes fixes the encoding for the file.
 */
export function createChunkDecoder(encoding: PadronEncoding = 'auto'): ChunkDecoder {
  let chosen: 'utf-8' | 'windows-1252' | null = encoding === 'auto' ? null : encoding;
  let utf8: TextDecoder | null = null;
  let atStart = true;
  // Bytes kept for the next chunk: a possible BOM still incomplete, or a character cut in two
  // before the encoding is known (deciding on half a character would be a guess).
  let held: Buffer | null = null;

  const decodeBytes = (bytes: Buffer, last: boolean): string => {
    if (chosen === null) {
      if (isAscii(bytes)) return bytes.toString('latin1');
      const complete = withoutCutSequence(bytes);
      if (!last && complete.length < bytes.length && isAscii(complete)) {
        held = Buffer.from(bytes.subarray(complete.length));
        return complete.toString('latin1');
      }
      chosen = isUtf8(last ? bytes : complete) ? 'utf-8' : 'windows-1252';
    }
    if (chosen === 'utf-8') return (utf8 ??= new TextDecoder('utf-8', { ignoreBOM: true })).decode(bytes, { stream: !last });
    const text = bytes.toString('latin1');
    return C1_TEST.test(text) ? text.replace(C1_ALL, (char) => WINDOWS_1252_C1.charAt(char.charCodeAt(0) - 0x80)) : text;
  };

  // NUL bytes and the DOS end-of-file mark; each check is one native scan of the chunk.
  const clean = (text: string): string => {
    const withoutNul = text.includes('\0') ? text.replaceAll('\0', '') : text;
    return withoutNul.includes('\x1a') ? withoutNul.replaceAll('\x1a', '') : withoutNul;
  };

  return {
    decode(chunk) {
      let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (held !== null) {
        bytes = Buffer.concat([held, bytes]);
        held = null;
      }
      if (atStart) {
        if (bytes.length < BOM.length && BOM.slice(0, bytes.length).every((byte, i) => bytes[i] === byte)) {
          held = bytes;
          return '';
        }
        atStart = false;
        if (bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2]) bytes = bytes.subarray(BOM.length);
      }
      return clean(decodeBytes(bytes, false));
    },
    end() {
      const rest = held ?? Buffer.alloc(0);
      held = null;
      return clean(decodeBytes(rest, true));
    },
  };
}

/** The bytes without a UTF-8 sequence cut by the chunk boundary, which would fail `isUtf8`. */
function withoutCutSequence(bytes: Buffer): Buffer {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if (byte < 0x80) return bytes;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? bytes.subarray(0, bytes.length - back) : bytes;
    }
  }
  return bytes;
}
