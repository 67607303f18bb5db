/**
 * The ERP's own log levels for a failure: `<date> <time> <pid> ERROR <db> <logger>: <message>`
 * (odoo/netsvc.py's format), CRITICAL for what stops the server.
 */
const ERP_FAILURE = /^\S+ \S+ \d+ (ERROR|CRITICAL) (\S+ \S+: .*)$/;
const TRACEBACK = 'Traceback (most recent call last):';
/** Any line the ERP's logger wrote (date, time, pid, level). */
const LOG_LINE = /^\d{4}-\d\d-\d\d \S+ \d+ [A-Z]+ /;

function takeWhile<T>(items: readonly T[], keep: (item: T) => boolean): T[] {
  const end = items.findIndex((item) => !keep(item));
  return end < 0 ? [...items] : items.slice(0, end);
}

/** The exception the last Python traceback in `lines` ended with: its first line that is not a frame (frames are indented). */
function lastException(lines: readonly string[]): string | undefined {
  const start = lines.lastIndexOf(TRACEBACK);
  if (start < 0) return undefined;
  return lines.slice(start + 1).find((line) => line.trim() !== '' && !/^\s/.test(line))?.trim();
}

/**
 * A failed ERP run's message, the error first: the log's first ERROR or CRITICAL line (without
 * its date and pid) and the exception a traceback ended with, then what the runtime said (the
 * command and its exit code). The whole log stays in the run's log; a message cut short in a
 * banner still says why.
 */
export function erpFailureMessage(runtimeMessage: string, logTail: readonly string[]): string {
  const at = logTail.findIndex((line) => ERP_FAILURE.test(line));
  const failure = at < 0 ? null : ERP_FAILURE.exec(logTail[at]!);
  // A failure's message may go on below its line (psycopg's `ERROR: division by zero` under "bad query").
  const continued = at < 0 ? [] : takeWhile(logTail.slice(at + 1), (line) => !LOG_LINE.test(line) && line !== TRACEBACK && line.trim() !== '').slice(0, 2);
  const exception = lastException(logTail);
  const first = failure ? [`${failure[1]} ${failure[2]}`, ...continued.map((line) => line.trim())].join(' ') : undefined;
  const said = [first, exception && !first?.includes(exception) ? exception : undefined].filter((part): part is string => part !== undefined);
  return said.length > 0 ? `${said.join(' — ')} (${runtimeMessage})` : runtimeMessage;
}
