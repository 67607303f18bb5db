const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

/**
 * The check digit AFIP computes over a CUIT's first 10 digits, or null when there is none
 * (`11 - r` is 10, a number AFIP never issues). Expects exactly 10 ASCII digits.
 */
export function cuitCheckDigit(firstTenDigits: string): number | null {
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (firstTenDigits.charCodeAt(i) - 48) * (WEIGHTS[i] ?? 0);
  return digitFromSum(sum);
}

/** True for 11 ASCII digits whose last one is the check digit of the first 10. */
export function isValidCuit(cuit: string): boolean {
  const value = readCuit(cuit);
  return value >= 0 && checkDigitVerifies(value);
}

/** `readCuit`'s result for a field that is not 11 ASCII digits. */
export const NOT_ELEVEN_DIGITS = -1;

/**
 * The CUIT of a trimmed field as a number, or `NOT_ELEVEN_DIGITS`. Structure only: agencies
 * publish rows whose check digit does not verify (a few per 200 in Salta's files), and a
 * withholding agent looks up the number printed on the invoice, so the importer keeps them and
 * judges the digit apart (`checkDigitVerifies`). One pass, no regex and no allocation: this runs
 * once per line of a multi-million line import.
 */
export function readCuit(field: string): number {
  if (field.length !== 11) return NOT_ELEVEN_DIGITS;
  let value = 0;
  for (let i = 0; i < 11; i++) {
    const digit = field.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NOT_ELEVEN_DIGITS;
    value = value * 10 + digit;
  }
  return value;
}

/** True when the last digit of a CUIT (as `readCuit` returns it) is the check digit of the others. */
export function checkDigitVerifies(cuit: number): boolean {
  let rest = Math.floor(cuit / 10);
  const check = cuit - rest * 10;
  let sum = 0;
  for (let i = 9; i >= 0; i--) {
    const digit = rest % 10;
    sum += digit * (WEIGHTS[i] ?? 0);
    rest = (rest - digit) / 10;
  }
  return digitFromSum(sum) === check;
}

function digitFromSum(sum: number): number | null {
  const digit = 11 - (sum % 11);
  if (digit === 11) return 0;
  return digit === 10 ? null : digit;
}

/**
 * A CUIT written the usual human way, `20-12345678-9`, without its hyphens; any other text as it
 * is. Salta's and Tucumán's files are the ones that might carry it (Tucumán's CUIT column is 13
 * wide, exactly the hyphenated form).
 */
export function withoutCuitHyphens(field: string): string {
  return field.length === 13 && field.charCodeAt(2) === 45 && field.charCodeAt(11) === 45 ? field.slice(0, 2) + field.slice(3, 11) + field.slice(12) : field;
}
