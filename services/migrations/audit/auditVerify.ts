import { describeErrors, schemaFiles, schemaValidator } from '#shared/schemaValidator.ts';
import { migrationDecider } from '../domain/migration.decider.ts';
import type { MigrationEvent, MigrationState } from '../domain/migration.ts';
import { chainHash, eventOfLine, GENESIS_HASH, type AuditLine } from './auditChain.ts';

/**
 * Checks an exported migration history (JSON lines, `auditChain.ts`) with nothing but the file:
 * every line parses, links to the line before and hashes to its own hash, versions follow one
 * another in one migration stream, each event is one the domain knows (its JSON Schema), and the
 * whole folds through the domain's evolve into the migration's final state.
 */
export type AuditVerdict =
  | { ok: true; events: number; stream: string; headHash: string; state: MigrationState }
  | { ok: false; line: number; problem: string };

const HASH = /^[0-9a-f]{64}$/;
const validMetadata = schemaValidator('events/EventMetadata.v1.json');

/** What is wrong with the shape of a parsed line, or null. */
function shapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an audit line: a JSON object is expected';
  const line = value as Record<string, unknown>;
  const wrong = (field: string, what: string) => `not an audit line: ${field} must be ${what}`;
  for (const field of ['stream', 'id', 'type', 'recorded_at']) if (typeof line[field] !== 'string' || line[field] === '') return wrong(field, 'a non-empty string');
  for (const field of ['version', 'global_position']) if (!Number.isSafeInteger(line[field]) || (line[field] as number) < 1) return wrong(field, 'a positive integer');
  for (const field of ['data', 'metadata']) if (typeof line[field] !== 'object' || line[field] === null || Array.isArray(line[field])) return wrong(field, 'an object');
  for (const field of ['prev_hash', 'hash']) if (typeof line[field] !== 'string' || !HASH.test(line[field])) return wrong(field, '64 lowercase hex digits');
  return null;
}

/** What is wrong with the event as the migration domain sees it, or null. */
function domainProblem(line: AuditLine, first: AuditLine | undefined): string | null {
  if (!line.stream.startsWith('migration-')) return `stream ${line.stream} is not a migration's`;
  if (first && line.stream !== first.stream) return `stream ${line.stream} differs from line 1's ${first.stream}`;
  if (!first && line.type !== 'MigrationCreated') return `a migration's history starts with MigrationCreated, not ${line.type}`;
  if (!validMetadata(line.metadata)) return `metadata does not match EventMetadata.v1: ${describeErrors(validMetadata)}`;
  const schema = `events/${line.type}.v1.json`;
  if (!line.type.startsWith('Migration') || !schemaFiles.includes(schema)) return `unknown event type ${line.type}`;
  const validData = schemaValidator(schema);
  if (!validData(line.data)) return `data does not match ${line.type}.v1: ${describeErrors(validData)}`;
  return null;
}

/** Verifies the text of a `history.jsonl` export; on failure names the first bad line (1-based) and why. */
export function verifyAuditLog(text: string): AuditVerdict {
  const rows = text.split('\n');
  if (rows.at(-1) === '') rows.pop();
  if (rows.length === 0) return { ok: false, line: 1, problem: 'the file holds no events' };
  let state = migrationDecider.initialState();
  let first: AuditLine | undefined;
  let previous: AuditLine | undefined;
  for (const [index, row] of rows.entries()) {
    const fail = (problem: string): AuditVerdict => ({ ok: false, line: index + 1, problem });
    let parsed: unknown;
    try {
      parsed = JSON.parse(row);
    } catch (error) {
      return fail(`bad JSON: ${(error as Error).message}`);
    }
    const shape = shapeProblem(parsed);
    if (shape) return fail(shape);
    const line = parsed as AuditLine;
    const expected = previous?.hash ?? GENESIS_HASH;
    if (line.prev_hash !== expected) {
      return fail(previous ? `broken chain: prev_hash is not line ${index}'s hash (a line before it was changed, removed or moved)` : 'broken chain: the first line’s prev_hash must be 64 zeros');
    }
    if (chainHash(line.prev_hash, eventOfLine(line)) !== line.hash) return fail('hash mismatch: the line’s content does not hash to its hash (it was changed after the export)');
    const expectedVersion = (previous?.version ?? 0) + 1;
    if (line.version !== expectedVersion) return fail(`out of order: version ${line.version} where version ${expectedVersion} belongs`);
    if (previous && line.global_position <= previous.global_position) return fail(`out of order: global position ${line.global_position} after ${previous.global_position}`);
    const domain = domainProblem(line, first);
    if (domain) return fail(domain);
    try {
      state = migrationDecider.evolve(state, { type: line.type, data: line.data } as MigrationEvent);
    } catch (error) {
      return fail(`the migration domain cannot fold it: ${(error as Error).message}`);
    }
    first ??= line;
    previous = line;
  }
  return { ok: true, events: rows.length, stream: first!.stream, headHash: previous!.hash, state };
}
