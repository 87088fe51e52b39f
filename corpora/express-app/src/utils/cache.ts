interface CacheEntry<V> {
  value: V;
  expiresAt: number;
}

/**
 * Tiny TTL cache with an upper bound on entries (oldest evicted first).
 * Good enough for memoising report queries in a single process.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, CacheEntry<V>>();
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 500,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses += 1;
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    return entry.value;
  }

  set(key: K, value: V, ttlMs = this.ttlMs): void {
    if (this.entries.has(key)) {
      this.entries.delete(key);
    } else if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) {
        this.entries.delete(oldest.value);
      }
    }
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  async getOrCompute(key: K, compute: () => Promise<V>): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) {
      return cached;
    }
    const value = await compute();
    this.set(key, value);
    return value;
  }

  invalidate(predicate?: (key: K) => boolean): number {
    if (!predicate) {
      const size = this.entries.size;
      this.entries.clear();
      return size;
    }
    let removed = 0;
    for (const key of [...this.entries.keys()]) {
      if (predicate(key)) {
        this.entries.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  stats(): { size: number; hits: number; misses: number } {
    return { size: this.entries.size, hits: this.hits, misses: this.misses };
  }
}
