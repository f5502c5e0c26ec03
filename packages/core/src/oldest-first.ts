/** A Map, Set or map-like collection whose keys iterate in insertion order. */
export interface KeyedCollection<K> {
  readonly size: number;
  keys(): Iterator<K>;
  delete(key: K): boolean;
}

/** Deletes the oldest entries of a collection past a bound (see {@link oldestFirst}). */
export interface OldestFirst {
  /** Deletes the oldest keys, in insertion order, until at most `max` are left. */
  trimTo(max: number): void;
}

/**
 * Trims a bounded collection by deleting its oldest keys, through one iterator kept from trim to
 * trim rather than a new one each time.
 *
 * Why: V8 leaves a deleted entry of a `Map` or `Set` in its table as a hole until the table is
 * rebuilt, and a new iterator walks every hole before the first live entry. A collection trimmed
 * by one key after each insertion (a cache at its bound) has its holes at the front, so each
 * `keys().next()` walked tens of thousands of them: about 20 µs a trim at 50,000 entries, which
 * made a worker with more than 50,000 messages awaiting receipts spend more on forgetting one
 * than on sending it (`docs/decisions.md`, "Speed, twenty-sixth pass"). A kept iterator walks
 * each hole once: every key before it was deleted by this trimmer or by the owner, and a key set
 * again goes to the end, ahead of it.
 */
export function oldestFirst<K>(collection: KeyedCollection<K>): OldestFirst {
  let order: Iterator<K> | null = null;
  return {
    trimTo(max) {
      while (collection.size > max) {
        order ??= collection.keys();
        const next = order.next();
        // Only after the collection was cleared or replaced under it: start again from the front.
        if (next.done) order = null;
        else collection.delete(next.value);
      }
    },
  };
}
