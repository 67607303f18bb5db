import type { RegistryView } from '../lookup/registry.ts';

/** A lookup's answer as sent: the body's bytes, encoded once, and the ETag that goes with them. */
export interface CachedAnswer {
  body: Buffer;
  etag: string;
}

/** Enough for every CUIT a busy day asks about; past it the cache starts over rather than track use. */
const MAX_ANSWERS = 200_000;

/**
 * Answers of the in-memory view, by CUIT and filters. Most lookups repeat (an agent's suppliers,
 * revalidations with If-None-Match), and building a result, encoding it and its ETag costs more
 * than a map read. Kept per view: a publish swaps the view, and the old answers go with it.
 */
export class AnswerCache {
  private view: RegistryView | undefined;
  private answers = new Map<string, CachedAnswer>();

  get(view: RegistryView, key: string): CachedAnswer | undefined {
    if (view !== this.view) return undefined;
    return this.answers.get(key);
  }

  set(view: RegistryView, key: string, answer: CachedAnswer): void {
    if (view !== this.view || this.answers.size >= MAX_ANSWERS) {
      this.view = view;
      this.answers = new Map();
    }
    this.answers.set(key, answer);
  }
}
