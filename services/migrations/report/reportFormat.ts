/**
 * How values read in the PDF report. The report uses the PDF standard fonts (nothing to download
 * or embed), which only have the glyphs of Windows-1252: `pdfText` replaces every other character,
 * so a customer's name in Cyrillic or a log line with an emoji shows `?`, never mojibake.
 */

/** Windows-1252's characters above Latin-1's printable range: the rest of what the standard fonts can draw. */
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** `text` as the standard fonts can draw it: tabs as spaces, other control characters dropped, unknown characters as `?`. */
export function pdfText(text: string): string {
  let out = '';
  for (const char of text.replace(/\r\n?/g, '\n').replace(/\t/g, '  ')) {
    const code = char.codePointAt(0)!;
    if (char === '\n' || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || CP1252_EXTRA.has(char)) out += char;
    else if (code === 0x2192) out += '->';
    else if (code > 0xff) out += '?'; // C0 and C1 control characters are dropped
  }
  return out;
}

/** `2026-11-23 09:12:03 UTC`: one zone for everyone who reads the report. */
export function reportTime(date: Date | null): string {
  if (!date) return '-';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`, `3 d 04 h`. */
export function reportDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const pad = (value: number) => String(value).padStart(2, '0');
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${pad(whole % 60)} s`;
  if (whole < 86_400) return `${Math.floor(whole / 3600)} h ${pad(Math.floor((whole % 3600) / 60))} min`;
  return `${Math.floor(whole / 86_400)} d ${pad(Math.floor((whole % 86_400) / 3600))} h`;
}

/** `1,234,567 bytes (1.2 MiB)`: the exact size a customer can compare, and one a person reads. */
export function reportBytes(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit} (${exact})`;
  }
  return exact;
}
