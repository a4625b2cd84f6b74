/** Anything kept in the history ring: it only needs its resourceVersion. */
export interface Versioned {
  readonly rv: number;
}

/**
 * A bounded ring of events in resourceVersion order. When it overflows, the oldest event is
 * dropped and `compactedRv` moves up to it: a watch that starts before that point has missed
 * changes and must be answered with 410 Expired.
 */
export class HistoryRing<T extends Versioned> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private size = 0;
  /** Watches and exact lists from a resourceVersion lower than this cannot be served. */
  compactedRv = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<T | undefined>(Math.max(1, capacity));
  }

  /** Appends an event, evicting (and compacting past) the oldest one when full. */
  push(item: T): void {
    if (this.size === this.items.length) {
      const evicted = this.items[this.start];
      if (evicted) this.compactedRv = evicted.rv;
      this.items[this.start] = item;
      this.start = (this.start + 1) % this.items.length;
      return;
    }
    this.items[(this.start + this.size) % this.items.length] = item;
    this.size += 1;
  }

  /** Drops every event and refuses resourceVersions below `rv` from now on. */
  compact(rv: number): void {
    this.items.fill(undefined);
    this.start = 0;
    this.size = 0;
    this.compactedRv = Math.max(this.compactedRv, rv);
  }

  /** True when events after `rv` are all still here. */
  covers(rv: number): boolean {
    return rv >= this.compactedRv;
  }

  /** The events with a resourceVersion greater than `rv`, oldest first. */
  after(rv: number): T[] {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.at(middle).rv <= rv) low = middle + 1;
      else high = middle;
    }
    const result: T[] = [];
    for (let i = low; i < this.size; i++) result.push(this.at(i));
    return result;
  }

  /** The events with a resourceVersion greater than `rv`, newest first. */
  afterNewestFirst(rv: number): T[] {
    const result: T[] = [];
    for (let i = this.size - 1; i >= 0; i--) {
      const item = this.at(i);
      if (item.rv <= rv) break;
      result.push(item);
    }
    return result;
  }

  private at(index: number): T {
    return this.items[(this.start + index) % this.items.length]!;
  }
}
