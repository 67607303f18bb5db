const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

/**
 * The check digit AFIP computes over a CUIT's first 10 digits, or null when there is none
 * (`11 - r` is 10, a number AFIP never issues). Expects exactly 10 ASCII digits.
 */
export function cuitCheckDigit(firstTenDigits: string): number | null {
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (firstTenDigits.charCodeAt(i) - 48) * (WEIGHTS[i] ?? 0);
  const digit = 11 - (sum % 11);
  if (digit === 11) return 0;
  return digit === 10 ? null : digit;
}

/** True for 11 ASCII digits whose last one is the check digit of the first 10. */
export function isValidCuit(cuit: string): boolean {
  return readCuit(cuit) >= 0;
}

/** `readCuit` results below zero: why the field is not a CUIT. */
export const NOT_ELEVEN_DIGITS = -1;
export const BAD_CHECK_DIGIT = -2;

/**
 * The CUIT of a trimmed field as a number, or `NOT_ELEVEN_DIGITS` / `BAD_CHECK_DIGIT`. One pass
 * over the characters, no regex and no allocation: this runs once per line of a multi-million
 * line import.
 */
export function readCuit(field: string): number {
  if (field.length !== 11) return NOT_ELEVEN_DIGITS;
  let sum = 0;
  let value = 0;
  for (let i = 0; i < 11; i++) {
    const digit = field.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NOT_ELEVEN_DIGITS;
    if (i < 10) sum += digit * (WEIGHTS[i] ?? 0);
    value = value * 10 + digit;
  }
  const expected = 11 - (sum % 11);
  const check = value % 10;
  if (expected === 10 || (expected === 11 ? 0 : expected) !== check) return BAD_CHECK_DIGIT;
  return value;
}

/**
 * A CUIT written the usual human way, `20-12345678-9`, without its hyphens; any other text as it
 * is. Salta's and Tucumán's files are the ones that might carry it (Tucumán's CUIT column is 13
 * wide, exactly the hyphenated form).
 */
export function withoutCuitHyphens(field: string): string {
  return field.length === 13 && field.charCodeAt(2) === 45 && field.charCodeAt(11) === 45 ? field.slice(0, 2) + field.slice(3, 11) + field.slice(12) : field;
}
