import { type PadronEncoding, createChunkDecoder } from './chunkDecoder.ts';

/** Consecutive lines of a file; line numbers are 1-based and count every line, blank ones too. */
export interface LineBatch {
  lines: string[];
  firstLineNumber: number;
}

/** Decoding options; the defaults suit every agency's file. */
export interface ReadLinesOptions {
  encoding?: PadronEncoding;
  /** A longer run without a line end means this is no line-oriented text file. */
  maxLineLength?: number;
}

const DEFAULT_MAX_LINE_LENGTH = 1 << 20;

/**
 * Decodes a byte stream (a Node Readable, or any async iterable of chunks) into batches of lines,
 * one batch per chunk, without ever holding more than a chunk and one partial line. Strips a
 * leading BOM, NUL bytes and DOS end-of-file marks; accepts CRLF and LF. Lines are not trimmed:
 * fixed-width layouts need their columns. Batches keep the per-line cost to an `indexOf` and a
 * `slice`; give the stream a large highWaterMark (1 MiB) for fewer, larger batches.
 */
export async function* readLineBatches(source: AsyncIterable<Uint8Array | string>, options: ReadLinesOptions = {}): AsyncGenerator<LineBatch> {
  const decoder = createChunkDecoder(options.encoding);
  const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  let carry = '';
  let nextLineNumber = 1;
  for await (const chunk of source) {
    const text = carry + (typeof chunk === 'string' ? chunk : decoder.decode(chunk));
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      lines.push(text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end));
      start = end + 1;
    }
    carry = text.slice(start);
    if (carry.length > maxLineLength) {
      throw new Error(`line ${nextLineNumber + lines.length} is longer than ${maxLineLength} characters: not a line-oriented text file`);
    }
    if (lines.length > 0) {
      yield { lines, firstLineNumber: nextLineNumber };
      nextLineNumber += lines.length;
    }
  }
  const last = carry + decoder.end();
  const lastLine = last.endsWith('\r') ? last.slice(0, -1) : last;
  if (lastLine !== '') yield { lines: [lastLine], firstLineNumber: nextLineNumber };
}

/** The same lines one by one; simpler to consume, slower than batches in a hot loop. */
export async function* readLines(source: AsyncIterable<Uint8Array | string>, options: ReadLinesOptions = {}): AsyncGenerator<{ line: string; lineNumber: number }> {
  for await (const batch of readLineBatches(source, options)) {
    for (let i = 0; i < batch.lines.length; i++) yield { line: batch.lines[i] ?? '', lineNumber: batch.firstLineNumber + i };
  }
}

/**
 * The first `count` lines (for `openParser`'s detection) and the batches again from the start, so
 * the file is read once. Consume or `return()` the replayed batches to release the stream; unlike
 * a generator function's, this `return()` releases it even before the first `next()` (the usual
 * case when detection refuses the file).
 */
export async function peekLines(batches: AsyncIterable<LineBatch>, count: number): Promise<{ firstLines: string[]; batches: AsyncGenerator<LineBatch> }> {
  const iterator = batches[Symbol.asyncIterator]();
  const seen: LineBatch[] = [];
  const firstLines: string[] = [];
  let exhausted = false;
  while (firstLines.length < count) {
    const next = await iterator.next();
    if (next.done === true) {
      exhausted = true;
      break;
    }
    seen.push(next.value);
    firstLines.push(...next.value.lines.slice(0, count - firstLines.length));
  }
  return { firstLines, batches: replay(seen, iterator, exhausted) };
}

function replay(seen: readonly LineBatch[], iterator: AsyncIterator<LineBatch>, exhausted: boolean): AsyncGenerator<LineBatch> {
  let index = 0;
  let finished = exhausted; // the source has nothing more, or was closed
  const close = async (): Promise<void> => {
    index = seen.length;
    if (finished) return;
    finished = true;
    await iterator.return?.();
  };
  return {
    async next() {
      const buffered = seen[index];
      if (buffered !== undefined) {
        index++;
        return { done: false, value: buffered };
      }
      if (finished) return { done: true, value: undefined };
      try {
        const step = await iterator.next();
        if (step.done === true) finished = true;
        return step;
      } catch (error) {
        finished = true;
        throw error;
      }
    },
    async return(value) {
      await close();
      return { done: true, value };
    },
    async throw(error: unknown) {
      await close();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
