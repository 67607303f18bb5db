import { readFileSync } from 'node:fs';
import { verifyAuditLog } from '#services/migrations/audit/auditVerify.ts';
import { describeMigrationState, migrationStateView } from '#services/migrations/audit/migrationStateView.ts';

/**
 * `npm run audit -- verify FILE`: checks a migration history exported as JSON lines
 * (`GET /api/v1/migrations/{slug}/history.jsonl`) from the file alone — no database, no network —
 * and prints the state its events fold into. Exit 0 when the chain holds, 1 when a line is bad
 * (named on stderr), 2 for a wrong command line or an unreadable file.
 */
const USAGE = 'usage: npm run audit -- verify FILE';

function main(args: string[]): number {
  const [command, file, ...rest] = args;
  if (command !== 'verify' || !file || rest.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    process.stderr.write(`cannot read ${file}: ${(error as Error).message}\n`);
    return 2;
  }
  const verdict = verifyAuditLog(text);
  if (!verdict.ok) {
    process.stderr.write(`${file}: line ${verdict.line}: ${verdict.problem}\n`);
    return 1;
  }
  const report = [
    `${file}: OK, ${verdict.events} events of ${verdict.stream}, chain intact`,
    `head hash: ${verdict.headHash}`,
    'final state, replayed from the file alone:',
    ...describeMigrationState(migrationStateView(verdict.state)).map((line) => `  ${line}`),
  ];
  process.stdout.write(`${report.join('\n')}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
