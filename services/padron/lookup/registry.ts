import { createHash } from 'node:crypto';
import type { Pool } from '#shared/db.ts';
import type { Logger } from '#shared/log.ts';
import { listPublishedLoads, type PublishedLoad } from '../storage/loads.ts';
import { argentineDate } from '../time.ts';
import { resolveSlots, slotsVersion } from './catalog.ts';
import type { LoadIndex } from './compactIndex.ts';
import { loadIndex } from './indexLoader.ts';
import { slotView, type SlotView } from './slotView.ts';

/** The loads that answer for one day, sorted by state then regime. */
export interface RegistryView {
  date: string;
  slots: SlotView[];
  /** Short token of the loads in `slots`: the part of every ETag that changes when data does. */
  version: string;
  /** True when every slot is in memory; otherwise lookups on this view read the database. */
  inMemory: boolean;
}

export interface RegistryOptions {
  pollMs: number;
  logger: Logger;
  /** Called after the current view changed (a publish, a new day). */
  onChange?: (view: RegistryView) => void;
  now?: () => number;
}

const MAX_DATE_VIEWS = 256;

/**
 * The published loads as the lookup service serves them. The current day's loads are held in
 * memory as compact indexes; the catalog of loads is polled from `padron.loads` (the database stays
 * the source of truth) and, when a publish or a new day changes which loads answer, the missing
 * indexes are read and the view is swapped in one assignment, so a lookup sees the old loads or
 * the new ones, never a mix. Other days resolve against the same catalog and read the database
 * for loads not in memory.
 */
export class PadronRegistry {
  private catalog: readonly PublishedLoad[] = [];
  private catalogKey = '';
  private indexes = new Map<number, LoadIndex>();
  private dateViews = new Map<string, RegistryView>();
  private refreshing: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  current: RegistryView;

  constructor(
    private readonly pool: Pool,
    private readonly options: RegistryOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.current = { date: argentineDate(this.now()), slots: [], version: 'empty', inMemory: true };
  }

  /** Loads the current indexes, then keeps polling. */
  async start(): Promise<void> {
    await this.refresh();
    const poll = () => {
      this.timer = setTimeout(() => {
        this.refresh()
          .catch((error: unknown) => this.options.logger.warn({ err: error }, 'padrón catalog refresh failed; serving the loads already in memory'))
          .finally(poll);
      }, this.options.pollMs);
      this.timer.unref();
    };
    poll();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** Re-reads the catalog; true when the current view changed. Concurrent calls share one refresh. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The view for `date`, or today's. */
  viewFor(date: string | undefined): RegistryView {
    if (date === undefined || date === this.current.date) return this.current;
    let view = this.dateViews.get(date);
    if (!view) {
      if (this.dateViews.size >= MAX_DATE_VIEWS) this.dateViews.clear();
      view = this.buildView(date, this.catalog);
      this.dateViews.set(date, view);
    }
    return view;
  }

  private async doRefresh(): Promise<boolean> {
    const catalog = await readCatalog(this.pool);
    const today = argentineDate(this.now());
    const key = `${today}/${catalog.map((load) => `${load.loadId}@${load.publishedAt.getTime()}`).join(',')}`;
    if (key === this.catalogKey) return false;
    const wanted = resolveSlots(catalog, today);
    const indexes = new Map<number, LoadIndex>();
    for (const { load } of wanted) {
      if (indexes.has(load.loadId)) continue;
      const held = this.indexes.get(load.loadId);
      if (held) indexes.set(load.loadId, held);
      else {
        const started = performance.now();
        indexes.set(load.loadId, await loadIndex(this.pool, load));
        this.options.logger.info({ loadId: load.loadId, state: load.state, rows: load.rows, ms: Math.round(performance.now() - started) }, 'padrón load indexed');
      }
    }
    // One swap: the loads indexed above and the view that uses them become visible together.
    this.indexes = indexes;
    this.catalog = catalog;
    this.catalogKey = key;
    this.dateViews = new Map();
    this.current = this.buildView(today, catalog);
    this.options.onChange?.(this.current);
    return true;
  }

  private buildView(date: string, catalog: readonly PublishedLoad[]): RegistryView {
    const resolved = resolveSlots(catalog, date);
    // last_update is per jurisdiction: B's P and R files are two loads, and both answer with the newer publish.
    const published = new Map<string, Date>();
    for (const { state, load } of resolved) if (load.publishedAt > (published.get(state) ?? new Date(0))) published.set(state, load.publishedAt);
    const slots = resolved.map((slot) => slotView(slot, this.indexes.get(slot.load.loadId), published.get(slot.state) ?? slot.load.publishedAt));
    const version = slots.length === 0 ? 'empty' : createHash('sha256').update(slotsVersion(slots)).digest('base64url').slice(0, 16);
    return { date, slots, version, inMemory: slots.every((slot) => slot.index !== undefined) };
  }
}

/** The published loads; none while schema `padron` does not exist (nothing was ever imported). */
async function readCatalog(pool: Pool): Promise<PublishedLoad[]> {
  try {
    return await listPublishedLoads(pool);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '42P01' || code === '3F000') return [];
    throw error;
  }
}
