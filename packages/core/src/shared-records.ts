/**
 * How many slots a key may be looked for in, from the one its hash names: a key lives in the first
 * free slot of its window, and a full window evicts its least recently used record.
 */
const PROBE = 16;

/** Int32 cells before the keys: the lock and the capacity. */
const HEADER = 2;
const LOCK = 0;
const CAPACITY = 1;

/**
 * The slot of a record: `values[at]` to `values[at + fields - 1]` are its fields (`at` is the
 * record's offset in `values`).
 */
export interface SharedRecord {
  readonly values: Float64Array;
  readonly at: number;
}

/**
 * A fixed table of records of numbers keyed by strings, in a `SharedArrayBuffer`, for state that
 * the threads serving one API share: the rate limiter's buckets and the failed-login counts.
 * Each operation runs under one lock of the table (a compare-and-swap on a shared cell, a wait on
 * it when another thread holds it), so that a read and the write that follows it are one step.
 *
 * A key is kept by a 64-bit hash of its text (two keys of one hash would share a record: about
 * one chance in 10^10 among 100,000 keys). Memory is bounded: a key lives in one of the
 * {@link PROBE} slots after the one its hash names; a new key takes a free slot there, else one
 * whose record `idle` says equals a new one (a full bucket, a forgotten login), else the least
 * recently used one of the window.
 */
export class SharedRecords {
  private readonly meta: Int32Array;
  private readonly keys: Int32Array;
  /** Each slot's fields, then its last use (the `now` of its latest operation). */
  private readonly values: Float64Array;
  private readonly stride: number;
  private readonly mask: number;

  /**
   * A view of `buffer` (made by {@link SharedRecords.buffer} with the same `fields`); every thread
   * makes its own over the same buffer. `idle` says whether a record equals a new one at `now`.
   */
  constructor(
    buffer: SharedArrayBuffer,
    readonly fields: number,
    private readonly idle: (values: Float64Array, at: number, now: number) => boolean,
  ) {
    const head = new Int32Array(buffer, 0, HEADER);
    const capacity = head[CAPACITY]!;
    this.meta = head;
    this.keys = new Int32Array(buffer, HEADER * 4, capacity * 2);
    // Float64 cells start on an 8-byte boundary after the keys.
    const valuesStart = Math.ceil(((HEADER + capacity * 2) * 4) / 8) * 8;
    this.stride = fields + 1;
    this.values = new Float64Array(buffer, valuesStart, capacity * this.stride);
    this.mask = capacity - 1;
  }

  /** A buffer for at least `entries` records of `fields` numbers (twice as many slots, a power of two). */
  static buffer(entries: number, fields: number): SharedArrayBuffer {
    let capacity = PROBE;
    while (capacity < entries * 2) capacity *= 2;
    const valuesStart = Math.ceil(((HEADER + capacity * 2) * 4) / 8) * 8;
    const buffer = new SharedArrayBuffer(valuesStart + capacity * (fields + 1) * 8);
    new Int32Array(buffer, 0, HEADER)[CAPACITY] = capacity;
    return buffer;
  }

  /**
   * Runs `fn` under the lock on the record of `key`, made (its fields by `init`) when there is none
   * or it is idle at `now`, and answers what `fn` answers. The record's last use becomes `now`.
   */
  update<T>(key: string, now: number, init: (values: Float64Array, at: number) => void, fn: (record: SharedRecord) => T): T {
    this.lock();
    try {
      const [h1, h2] = hashKey(key);
      let slot = this.find(h1, h2);
      let made = false;
      if (slot < 0) {
        slot = this.place(h1, now);
        this.keys[slot * 2] = h1;
        this.keys[slot * 2 + 1] = h2;
        made = true;
      }
      const at = slot * this.stride;
      // An idle record equals a new one: it is made again, whether or not its slot was reused.
      if (made || this.idle(this.values, at, now)) init(this.values, at);
      this.values[at + this.fields] = now;
      return fn({ values: this.values, at });
    } finally {
      this.unlock();
    }
  }

  /** Runs `fn` under the lock on the record of `key` if there is one (null otherwise), without making one. */
  peek<T>(key: string, fn: (record: SharedRecord | null) => T): T {
    this.lock();
    try {
      const [h1, h2] = hashKey(key);
      const slot = this.find(h1, h2);
      return fn(slot < 0 ? null : { values: this.values, at: slot * this.stride });
    } finally {
      this.unlock();
    }
  }

  /** Records held that are not idle at `now`. */
  size(now: number): number {
    this.lock();
    try {
      let n = 0;
      for (let slot = 0; slot <= this.mask; slot++) {
        if (this.keys[slot * 2 + 1] !== 0 && !this.idle(this.values, slot * this.stride, now)) n++;
      }
      return n;
    } finally {
      this.unlock();
    }
  }

  /** The slot of a key, or -1. Slots never empty again, so a key is never behind an empty slot. */
  private find(h1: number, h2: number): number {
    for (let i = 0; i < PROBE; i++) {
      const slot = (h1 + i) & this.mask;
      const k2 = this.keys[slot * 2 + 1];
      if (k2 === 0) return -1;
      if (k2 === h2 && this.keys[slot * 2] === h1) return slot;
    }
    return -1;
  }

  /** A slot for a new key: the first empty one of its window, else its first idle one, else its least recently used. */
  private place(h1: number, now: number): number {
    let idle = -1;
    let oldest = -1;
    let oldestUse = Infinity;
    for (let i = 0; i < PROBE; i++) {
      const slot = (h1 + i) & this.mask;
      if (this.keys[slot * 2 + 1] === 0) return slot;
      const at = slot * this.stride;
      if (idle < 0 && this.idle(this.values, at, now)) idle = slot;
      const use = this.values[at + this.fields]!;
      if (use < oldestUse) {
        oldestUse = use;
        oldest = slot;
      }
    }
    return idle >= 0 ? idle : oldest;
  }

  private lock(): void {
    // Held for a few hundred nanoseconds at a time: spin a little, then sleep until released.
    for (let spins = 0; Atomics.compareExchange(this.meta, LOCK, 0, 1) !== 0; spins++) {
      if (spins > 64) Atomics.wait(this.meta, LOCK, 1, 1);
    }
  }

  private unlock(): void {
    Atomics.store(this.meta, LOCK, 0);
    Atomics.notify(this.meta, LOCK, 1);
  }
}

/** MurmurHash3's finalizer: every bit of the input moves about half the output's. */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/**
 * Two independent 32-bit hashes of `key` (FNV-1a, and a multiply-xorshift with other constants),
 * both finalized; the second made odd so that 0 marks an empty slot. The same in every thread.
 */
function hashKey(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [fmix(a ^ key.length), fmix(b) | 1];
}
