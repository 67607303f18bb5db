import { Transform, type TransformCallback } from 'node:stream';

/** A plain dump holding what a restore must not run; the message names the line. */
export class DumpRefusedError extends Error {
  override readonly name = 'DumpRefusedError';
}

/** A longer line is passed through undecided: the statements filtered here are all far shorter. */
const MAX_HELD_LINE = 1 << 20;
const EMPTY_LINE = Buffer.from('\n');

/**
 * What psql reads when restoring a plain SQL dump, streamed line by line.
 *
 * - psql runs backslash meta-commands found in its input, `\!` (a shell) among them, so a crafted
 *   dump could run commands on the executor's host. psql is put in restricted mode under a key of
 *   its caller's (`\restrict`, PostgreSQL's own fix for this, in every psql since August 2025);
 *   the dump's own `\restrict`/`\unrestrict` lines are dropped, and any other meta-command at
 *   the start of a line is refused with its line number.
 * - `CREATE DATABASE` (a dump made with --create) is refused: it would restore somewhere else.
 * - Ownership and privilege statements are dropped, as `pg_restore --no-owner --no-acl` does:
 *   the roles of the server the dump came from do not exist here. So are comments on extensions,
 *   which only an extension's owner (a superuser) may set.
 *
 * Rows of `COPY … FROM stdin` blocks pass untouched (a row may well start with `\N`). A dropped
 * line becomes an empty one, so psql's line numbers are the dump's.
 */
export function plainDumpFilter(): Transform {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let passingLongLine = false;
  let inCopy = false;
  let lineNumber = 0;

  function decide(line: Buffer): Buffer {
    const text = line.toString('latin1').replace(/\r?\n$/, '');
    if (inCopy) {
      if (text === '\\.') inCopy = false;
      return line;
    }
    if (/^\\(restrict|unrestrict)(\s|$)/.test(text)) return EMPTY_LINE;
    if (text.startsWith('\\')) {
      throw new DumpRefusedError(`plain dump refused: line ${lineNumber} holds the psql command ${text.split(/\s/)[0]}; only pg_dump output of one database is restored`);
    }
    if (/^CREATE DATABASE\s/i.test(text)) {
      throw new DumpRefusedError(`plain dump refused: line ${lineNumber} creates a database (a dump made with --create); dump the database without --create`);
    }
    if (/^ALTER .+ OWNER TO .+;$/.test(text) || /^(GRANT|REVOKE|ALTER DEFAULT PRIVILEGES) .+;$/.test(text)) return EMPTY_LINE;
    if (/^SET SESSION AUTHORIZATION .+;$/.test(text) || /^COMMENT ON EXTENSION .+;$/.test(text)) return EMPTY_LINE;
    if (/^COPY .+ FROM stdin;$/.test(text)) inCopy = true;
    return line;
  }

  const filter = new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      try {
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(0x0a, start);
          const end = newline === -1 ? chunk.length : newline + 1;
          const piece = chunk.subarray(start, end);
          if (passingLongLine) {
            this.push(piece);
          } else {
            held.push(piece);
            heldBytes += piece.length;
            if (newline === -1 && heldBytes > MAX_HELD_LINE) {
              this.push(Buffer.concat(held));
              held = [];
              heldBytes = 0;
              passingLongLine = true;
            }
          }
          if (newline !== -1) {
            lineNumber++;
            if (!passingLongLine) {
              this.push(decide(Buffer.concat(held)));
            }
            held = [];
            heldBytes = 0;
            passingLongLine = false;
          }
          start = end;
        }
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        if (!passingLongLine && heldBytes > 0) {
          lineNumber++;
          this.push(Buffer.concat([decide(Buffer.concat(held)), EMPTY_LINE]));
        }
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
  return filter;
}
