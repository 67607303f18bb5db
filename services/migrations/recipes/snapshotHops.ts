import { recipeDigest } from './recipeDigest.ts';

/** Each hop's text in a snapshot starts with this line, so a multi-hop snapshot splits back into its recipes. */
export const HOP_MARK = '# forja-recipe: ';

export interface SnapshotHop {
  key: string;
  text: string;
}

/** One snapshot text of a route's recipes, in hop order. */
export const joinHops = (hops: readonly SnapshotHop[]): string => hops.map((hop) => `${HOP_MARK}${hop.key}\n${hop.text}`).join('\n');

/** The hops of a snapshot text, each exactly as it was saved (`joinHops` undone). */
export function splitHops(text: string): SnapshotHop[] {
  const parts = text.split(`\n${HOP_MARK}`);
  return parts.map((part, index) => {
    const body = index === 0 ? part.slice(part.startsWith(HOP_MARK) ? HOP_MARK.length : 0) : part;
    const newline = body.indexOf('\n');
    return newline < 0 ? { key: body, text: '' } : { key: body.slice(0, newline), text: body.slice(newline + 1) };
  });
}

/** Each hop's key and the sha256 of its text: which saved version of each recipe a migration took. */
export const hopDigests = (text: string): Array<{ key: string; sha256: string }> => splitHops(text).map((hop) => ({ key: hop.key, sha256: recipeDigest(hop.text) }));
