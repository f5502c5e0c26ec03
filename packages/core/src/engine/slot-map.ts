/**
 * A map from numbers to values, for a long-lived map that gains and loses entries all the time
 * (a worker's sends in flight, the messages it last committed): the same operations as a `Map`,
 * in the same insertion order, but the values are kept in an array of slots, reused once freed,
 * and the `Map` inside holds only each key's slot number.
 *
 * Why: V8 replaces a `Map`'s table as deleted entries fill it, and allocates the new table in
 * the old generation when the map lives there. A replaced table is garbage, but until the next
 * full collection it still points at the values it held, and a young value pointed at from the
 * old generation survives every young collection: each message a worker handled was copied and
 * promoted (about 0.6 KB a message end to end, a third of the workers' thread's scavenge time;
 * `docs/decisions.md`, "Speed, twelfth pass"). Here a replaced table holds numbers only, and the
 * slots array lets a value go as soon as its key is deleted.
 */
export class SlotMap<V> {
  private readonly slotOf = new Map<number, number>();
  private readonly slots: Array<V | undefined> = [];
  private readonly free: number[] = [];

  get size(): number {
    return this.slotOf.size;
  }

  get(key: number): V | undefined {
    const slot = this.slotOf.get(key);
    return slot === undefined ? undefined : this.slots[slot];
  }

  has(key: number): boolean {
    return this.slotOf.has(key);
  }

  /** Sets the value of `key`; a key already there keeps its place in the order, as in a `Map`. */
  set(key: number, value: V): this {
    const slot = this.slotOf.get(key);
    if (slot !== undefined) {
      this.slots[slot] = value;
      return this;
    }
    const free = this.free.pop() ?? this.slots.length;
    this.slots[free] = value;
    this.slotOf.set(key, free);
    return this;
  }

  delete(key: number): boolean {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return false;
    this.slotOf.delete(key);
    this.slots[slot] = undefined;
    this.free.push(slot);
    return true;
  }

  /** The keys in insertion order. */
  keys(): IterableIterator<number> {
    return this.slotOf.keys();
  }

  /** The values in their keys' insertion order. */
  *values(): IterableIterator<V> {
    for (const slot of this.slotOf.values()) yield this.slots[slot] as V;
  }
}
