/** `90s`, `30m`, `24h`, `7d` in milliseconds: the duration settings (FORJA_SLEEP_AFTER, FORJA_TOOL_IDLE, FORJA_SHELL_IDLE), whose schemas' patterns admit only these. */
export function durationMs(text: string): number {
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[text.slice(-1)] ?? NaN;
  return Number(text.slice(0, -1)) * unit;
}
