/**
 * Argentine time, which the agencies' files and the spec's `last_update` speak. Argentina keeps
 * UTC−3 all year (no daylight saving since 2009), so a fixed offset is exact and costs nothing on
 * the lookup path, unlike Intl.
 */
const OFFSET_MS = -3 * 60 * 60 * 1000;

/** `YYYY-MM-DD` of the Argentine calendar day at `ms` (epoch milliseconds). */
export function argentineDate(ms: number): string {
  return new Date(ms + OFFSET_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DDTHH:MM:SS` in Argentine time, no zone: the spec's `last_update`. */
export function argentineDateTime(date: Date): string {
  return new Date(date.getTime() + OFFSET_MS).toISOString().slice(0, 19);
}

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(text);
}

/** `YYYY-MM-DD` that many calendar months before `date` (clamped to the month's last day). */
export function monthsBefore(date: string, months: number): string {
  const [year = 0, month = 1, day = 1] = date.split('-').map(Number);
  const target = new Date(Date.UTC(year, month - 1 - months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target.toISOString().slice(0, 10);
}
