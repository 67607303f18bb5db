/**
 * A seeded generator (mulberry32) so a given `--seed` always writes the same files: a failing
 * round trip can be reproduced byte for byte.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, below). */
  int(below: number): number;
  /** True with probability `share`. */
  chance(share: number): boolean;
  /** One of the items, weighted by the matching weights. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T;
  pick<T>(items: readonly T[]): T;
}

/** A generator seeded with `seed`; two with the same seed draw the same numbers. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number): number => Math.floor(next() * below);
  return {
    next,
    int,
    chance: (share) => next() < share,
    weighted(items, weights) {
      const total = weights.reduce((sum, weight) => sum + weight, 0);
      let roll = next() * total;
      for (let i = 0; i < items.length; i++) {
        roll -= weights[i] ?? 0;
        if (roll < 0) return items[i] as (typeof items)[number];
      }
      return items[items.length - 1] as (typeof items)[number];
    },
    pick: (items) => items[int(items.length)] as (typeof items)[number],
  };
}
