import { parseArgs } from 'node:util';

/** `npm run padron:generate` options; `scale` multiplies every file's row count. */
export interface GeneratorOptions {
  out: string;
  scale: number;
  seed: number;
  invalidShare: number;
  zip: boolean;
}

/** Rows per file at scale 1: over 3 million in all, the size the import must handle. */
export const DEFAULT_ROWS = {
  arbaPerception: 1_000_000,
  arbaWithholding: 1_000_000,
  caba: 600_000,
  santaFe: 200_000,
  entreRios: 100_000,
  cordobaPerception: 100_000,
  cordobaWithholding: 100_000,
  tucuman: 50_000,
  saltaRisk: 20_000,
  saltaPercentage: 20_000,
} as const;

const USAGE = 'usage: npm run padron:generate -- --out DIR [--scale 1] [--seed 1] [--invalid-share 0.001] [--no-zip]';

/** Reads the command line; throws a one-line message with the usage on a bad value. */
export function readOptions(argv: string[]): GeneratorOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string' },
      scale: { type: 'string', default: '1' },
      seed: { type: 'string', default: '1' },
      'invalid-share': { type: 'string', default: '0.001' },
      'no-zip': { type: 'boolean', default: false },
    },
  });
  const scale = Number(values.scale);
  const seed = Number(values.seed);
  const invalidShare = Number(values['invalid-share']);
  if (values.out === undefined) throw new Error(`--out is required; ${USAGE}`);
  if (!(scale > 0)) throw new Error(`--scale must be a positive number; ${USAGE}`);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer; ${USAGE}`);
  if (!(invalidShare >= 0 && invalidShare < 1)) throw new Error(`--invalid-share must be in [0, 1); ${USAGE}`);
  return { out: values.out, scale, seed, invalidShare, zip: !values['no-zip'] };
}
