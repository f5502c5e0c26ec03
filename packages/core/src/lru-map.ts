import { oldestFirst } from './oldest-first.ts';

/**
 * A map kept in least-recently-used order, oldest first: a use (`get`) or a `set` makes a key the
 * most recent. For long-lived caches read on every request (the auth cache, the rate limiter's
 * buckets).
 *
 * A use of the key used or set last leaves the map alone: it is already the most recent, and
 * moving it anyway (a delete and a set on the inner `Map`) would replace the map's table every
 * few requests when one key takes them all. The map lives in the old generation, and each
 * replaced table, garbage until the next full collection, would keep young values alive through
 * the young collections (`docs/decisions.md`, "Speed, twelfth pass").
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  /** Trims from the least recently used key on, walking the map's holes once (see oldestFirst). */
  private readonly oldest = oldestFirst(this.map);
  /** The key made most recent last; while it is in the map, it is the map's last entry. */
  private last: K | undefined;

  get size(): number {
    return this.map.size;
  }

  /** The value of `key`, which becomes the most recent. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined && key !== this.last) {
      this.map.delete(key);
      this.map.set(key, value);
      this.last = key;
    }
    return value;
  }

  /** Sets `key` as the most recent. */
  set(key: K, value: V): this {
    if (key !== this.last) this.map.delete(key);
    this.map.set(key, value);
    this.last = key;
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  /** Deletes the least recently used keys until at most `max` are left. */
  trimTo(max: number): void {
    this.oldest.trimTo(max);
  }

  /** The entries, least recently used first. */
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }
}
