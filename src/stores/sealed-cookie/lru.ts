/** A bounded LRU map: a `Map` keeps insertion order, so re-inserting on a hit leaves the least recent first, for eviction. */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #limit: number;

  /** @param limit The most entries kept; 0 keeps none. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.#limit === 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#limit) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
  }

  get size(): number {
    return this.#entries.size;
  }
}
