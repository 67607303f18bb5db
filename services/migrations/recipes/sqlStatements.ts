/**
 * How many statements `sql` holds: the semicolons outside strings, quoted names, comments and
 * dollar quotes that end something other than whitespace and comments. The linter's early word
 * only; what the executor sends as one statement, Postgres itself refuses to split.
 */
export function statementCount(sql: string): number {
  let count = 0;
  let pending = false;
  let at = 0;
  while (at < sql.length) {
    const skipped = skipQuoted(sql, at);
    if (skipped > at) {
      // A comment alone is no statement; a string or a quoted name is.
      if (!sql.startsWith('--', at) && !sql.startsWith('/*', at)) pending = true;
      at = skipped;
      continue;
    }
    const char = sql[at]!;
    if (char === ';') {
      if (pending) count++;
      pending = false;
    } else if (!/\s/.test(char)) {
      pending = true;
    }
    at++;
  }
  return pending ? count + 1 : count;
}

const DOLLAR_TAG = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;

/** Where the string, quoted name, comment or dollar-quoted text starting at `at` ends; `at` when none starts there. */
function skipQuoted(sql: string, at: number): number {
  if (sql.startsWith('--', at)) return endOf(sql, sql.indexOf('\n', at));
  if (sql.startsWith('/*', at)) return blockCommentEnd(sql, at);
  const char = sql[at];
  if (char === "'") return quotedEnd(sql, at, "'", /[eE]/.test(sql[at - 1] ?? '') && !/\w/.test(sql[at - 2] ?? ''));
  if (char === '"') return quotedEnd(sql, at, '"', false);
  if (char === '$' && !/\w/.test(sql[at - 1] ?? '')) {
    DOLLAR_TAG.lastIndex = at;
    const tag = DOLLAR_TAG.exec(sql)?.[0];
    if (tag !== undefined) {
      const close = sql.indexOf(tag, at + tag.length);
      return close < 0 ? sql.length : close + tag.length;
    }
  }
  return at;
}

/** The end of `'…'` or `"…"`, a doubled quote inside it escaped, a backslash too in an E'…' string. */
function quotedEnd(sql: string, at: number, quote: string, backslashes: boolean): number {
  for (let i = at + 1; i < sql.length; i++) {
    if (backslashes && sql[i] === '\\') i++;
    else if (sql[i] === quote && sql[i + 1] === quote) i++;
    else if (sql[i] === quote) return i + 1;
  }
  return sql.length;
}

/** Postgres nests block comments. */
function blockCommentEnd(sql: string, at: number): number {
  let depth = 0;
  for (let i = at; i < sql.length - 1; i++) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i++;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return sql.length;
}

const endOf = (sql: string, index: number): number => (index < 0 ? sql.length : index);
