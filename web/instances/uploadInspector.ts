import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/** Enough of a file's start to tell what it is. */
const HEAD_BYTES = 8 * 1024;

/**
 * Passes a file through to the blob store, judging it by its first bytes and counting it against what the
 * upload may still take. Once judged bad or over the limit it drops the rest (never destroying
 * busboy's stream, which must be read to the end for the form to finish). It counts and hashes what
 * it passes on, so a stored file's size and sha256 need no second read.
 */
export function inspector(judge: (head: Buffer) => string | null, budget: { left: number }) {
  const head: Buffer[] = [];
  let headLength = 0;
  let judged = false;
  const result: { refusal?: string; tooLarge?: boolean; bytes: number } = { bytes: 0 };
  const hash = createHash('sha256');
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
        if (result.refusal || result.tooLarge) return done();
        result.bytes += chunk.length;
        hash.update(chunk);
        done(null, chunk);
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
  return { stream, result, sha256: () => hash.digest('hex') };
}

