/**
 * Rate distributions by jurisdiction. Values and weights are plausible, not official: a few
 * common rates carry most subjects, 0 is frequent, and each rate has the group number agencies
 * attach to it, so grouped rows look like the real files.
 */
export interface RateTable {
  rates: readonly string[];
  weights: readonly number[];
}

export const ARBA_PERCEPTION: RateTable = {
  rates: ['0,00', '0,10', '0,20', '0,50', '1,00', '1,50', '2,00', '2,50', '3,00', '3,50', '4,00', '5,00', '6,00', '8,00'],
  weights: [8, 2, 3, 6, 10, 8, 12, 10, 14, 8, 7, 5, 5, 2],
};

export const ARBA_WITHHOLDING: RateTable = {
  rates: ['0,00', '0,05', '0,10', '0,20', '0,50', '1,00', '1,50', '2,00', '2,50', '3,00', '4,00', '4,75'],
  weights: [8, 3, 3, 5, 10, 14, 12, 12, 9, 8, 4, 2],
};

export const AGIP_RATES: RateTable = {
  rates: ['0,00', '0,10', '0,50', '1,00', '1,50', '2,00', '2,50', '3,00', '3,50', '4,00', '4,50', '5,00', '6,00'],
  weights: [10, 3, 6, 8, 9, 12, 9, 14, 7, 6, 4, 3, 2],
};

/** Santa Fe writes rates unpadded (`2,5`, `0,1`, `2`). */
export const SANTA_FE_RATES: RateTable = {
  rates: ['0', '0,1', '0,5', '1', '1,25', '1,5', '2', '2,5', '3', '3,5', '4,5'],
  weights: [8, 3, 5, 8, 5, 10, 9, 12, 10, 5, 2],
};

/** Córdoba pads the integer part (`02,50`). */
export const CORDOBA_RATES: RateTable = {
  rates: ['00,00', '00,50', '01,00', '01,50', '02,00', '02,50', '03,00', '03,50', '04,00', '04,75'],
  weights: [12, 5, 8, 10, 10, 14, 12, 6, 4, 2],
};

export const TUCUMAN_RATES: RateTable = {
  rates: ['0,5', '1', '1,5', '2', '2,5', '3', '3,5', '5'],
  weights: [4, 10, 10, 12, 8, 8, 4, 3],
};

export const SALTA_OLD_RATES: RateTable = {
  rates: ['0.5', '1', '1.5', '2', '2.6', '3.6'],
  weights: [5, 8, 10, 12, 6, 3],
};

/** The group of a rate: its position in the table, zero-padded like ARBA and AGIP print it. */
export function groupOf(table: RateTable, rate: string, width = 2): string {
  return String(table.rates.indexOf(rate) + 1).padStart(width, '0');
}
