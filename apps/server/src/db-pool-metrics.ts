import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** What a pool says of itself (node-postgres's `pg.Pool`). */
export interface PoolState {
  /** Connections open or being opened. */
  readonly totalCount: number;
  /** Connections open and not lent out. */
  readonly idleCount: number;
  /** Calls waiting for a connection (every one lent out). */
  readonly waitingCount: number;
}

/** Cells of one pool in {@link PoolCounts}: its total, idle and waiting counts. */
const CELLS = 3;

/**
 * The pool counts of the threads of one process (cells of a `SharedArrayBuffer`), for the main
 * thread's `/metrics`: each thread with a pool of its own writes its cells ({@link samplePool}).
 */
export type PoolCounts = Int32Array;

/** Counts for `pools` pools. */
export function poolCounts(pools: number): PoolCounts {
  return new Int32Array(new SharedArrayBuffer(4 * CELLS * pools));
}

/** How often a thread copies its pool's counts into its cells, ms: a scrape sees them at most this old. */
const SAMPLE_MS = 250;

/**
 * Copies `pool`'s counts into its cells (`index`) now and every {@link SAMPLE_MS}, until the
 * answer is called. Sampled, not evented: a call starting to wait for a connection emits nothing.
 */
export function samplePool(pool: PoolState, counts: PoolCounts, index: number): () => void {
  const sample = () => {
    Atomics.store(counts, index * CELLS, pool.totalCount);
    Atomics.store(counts, index * CELLS + 1, pool.idleCount);
    Atomics.store(counts, index * CELLS + 2, pool.waitingCount);
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The pool state another thread wrote into its cells (`index`). */
export function sampledPool(counts: PoolCounts, index: number): PoolState {
  return {
    get totalCount() {
      return Atomics.load(counts, index * CELLS);
    },
    get idleCount() {
      return Atomics.load(counts, index * CELLS + 1);
    },
    get waitingCount() {
      return Atomics.load(counts, index * CELLS + 2);
    },
  };
}

/** Which threads' pools the gauges cover, in the words of their HELP. */
const THREADS =
  'by thread of this process, each with a pool of its own: "0" the main thread (it writes every send the HTTP threads accept; in a workers-only process it runs the workers), "1"... the other HTTP threads (SPILLWAY_HTTP_THREADS), "workers" the workers\' thread';

/**
 * `spillway_db_pool_connections{thread,state}` and `spillway_db_pool_waiting{thread}` on
 * `registry`: the PostgreSQL pools of this process, as `pools` answers them at each scrape (the
 * main thread's read live, the other threads' from their cells). Another process's pools are on
 * its own `/metrics`.
 */
export function registerDbPoolGauges(registry: Registry, pools: () => Iterable<readonly [thread: string, pool: PoolState]>): void {
  new Gauge({
    name: 'spillway_db_pool_connections',
    help: `PostgreSQL connections of the pool (at most 10 each), ${THREADS}; state busy: lent out to a request or a round (or being opened), idle: open and free`,
    labelNames: ['thread', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [thread, pool] of pools()) {
        const idle = pool.idleCount;
        this.set({ thread, state: 'busy' }, Math.max(0, pool.totalCount - idle));
        this.set({ thread, state: 'idle' }, idle);
      }
    },
  });
  new Gauge({
    name: 'spillway_db_pool_waiting',
    help: `Database calls waiting for a connection of the pool (every one busy), ${THREADS}; past SPILLWAY_DB_BUSY_TIMEOUT_MS such a call fails as busy (a request answered 503)`,
    labelNames: ['thread'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [thread, pool] of pools()) this.set({ thread }, pool.waitingCount);
    },
  });
}
