import { cuitCheckDigit } from '#services/padron/parse/cuit.ts';
import { createRandom } from './random.ts';

const BODY_SPACE = 100_000_000;
const STRIDE = 48_271_713; // odd and not a multiple of 5: coprime with 10^8, so i ↦ i·STRIDE is a permutation

const PERSON_PREFIXES = ['20', '27', '23'] as const;
const COMPANY_PREFIXES = ['30', '33'] as const;

/** A generated subject: its CUIT (valid unless asked otherwise) and whether it is a company. */
export interface Subject {
  cuit: string;
  company: boolean;
}

/**
 * Distinct CUITs for one file, in a scattered order like a real padrón sorted by anything but CUIT.
 * Bodies walk a permutation of the 8-digit space, so no CUIT repeats within a file (a loader with a
 * primary key would refuse duplicates); the same `offset` gives two files the same subjects, as
 * ARBA's perception and withholding files have. Subjects draw from their own seeded sequence so
 * that holds whatever else the files draw.
 */
export function createSubjects(offset: number): (invalid: boolean) => Subject {
  const random = createRandom(offset);
  let index = 0;
  return (invalid) => {
    for (;;) {
      index++;
      const company = random.chance(0.3);
      const prefix = company ? random.weighted(COMPANY_PREFIXES, [9, 1]) : random.weighted(PERSON_PREFIXES, [6, 5, 1]);
      const body = String((index * STRIDE + offset) % BODY_SPACE).padStart(8, '0');
      const digit = cuitCheckDigit(prefix + body);
      if (digit === null) continue; // AFIP never issues these; a real file would not hold them
      return { cuit: `${prefix}${body}${invalid ? (digit + 1) % 10 : digit}`, company };
    }
  };
}
