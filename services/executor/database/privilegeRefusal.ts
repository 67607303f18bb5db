/**
 * Reads what pg_restore and psql print when the server refuses a statement for lack of rights:
 * a dump that needs a superuser (an untrusted extension, `ALTER SYSTEM`, `COPY … PROGRAM`,
 * `CREATE ROLE`) fails as the instance's role, and the operator is told which statement.
 *
 *   pg_restore: error: could not execute query: ERROR:  permission denied to create extension "plpython3u"
 *   Command was: CREATE EXTENSION IF NOT EXISTS plpython3u WITH SCHEMA public;
 *   psql:<stdin>:12: ERROR:  must be superuser to execute ALTER SYSTEM command
 */
const REFUSED = /ERROR:\s+((?:must be superuser|permission denied|must be owner of|must be member of|must have admin option)[^]*)$/;
const HARMLESS = /must be owner of extension plpgsql/;
const PSQL_LINE = /^psql:[^:]*:(\d+): ERROR:/;

export interface PrivilegeRefusal {
  error: string;
  /** The statement, when the tool printed it (pg_restore's "Command was:"), or the dump's line (psql). */
  where: string | null;
}

/** Watches a tool's stderr lines and keeps the first refusal, with its statement. */
export function privilegeRefusalWatcher() {
  let refusal: PrivilegeRefusal | null = null;
  let awaitingCommand = false;
  return {
    see(line: string): void {
      if (awaitingCommand && refusal && line.startsWith('Command was: ')) {
        refusal = { ...refusal, where: `statement ${line.slice('Command was: '.length).trim().slice(0, 300)}` };
        awaitingCommand = false;
        return;
      }
      if (refusal) return;
      const match = REFUSED.exec(line);
      if (!match || HARMLESS.test(line)) return;
      const psqlLine = PSQL_LINE.exec(line);
      refusal = { error: match[1]!.trim(), where: psqlLine ? `line ${psqlLine[1]} of the dump` : null };
      awaitingCommand = !psqlLine;
    },
    get refusal(): PrivilegeRefusal | null {
      return refusal;
    },
  };
}

/** The message an operator reads on the instance: what was refused, where, and what to do. */
export function privilegeRefusalMessage(what: string, refusal: PrivilegeRefusal): string {
  return `${what}: the dump needs rights an instance's database role does not have (${refusal.error}${refusal.where ? `; ${refusal.where}` : ''}); Forja restores customer dumps without superuser rights: remove that statement from the dump, or have a database administrator run it`;
}
