const DURATION = /^(?=\d)(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** Seconds in a recipe duration such as `2h`, `30m`, `45s` or `1h30m`; null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text);
  if (!match) return null;
  const [, hours = '0', minutes = '0', seconds = '0'] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}
