import type { Clock, Storage, TimerHandle } from '@spillway/core';
import { HEARTBEAT_MS, STALE_WORKER_MS } from '@spillway/core/adapter';
import type { WorkerCounts } from '@spillway/http';
import type { Logger } from 'pino';

/** The live workers on the database and the backlog nobody takes, counted every heartbeat period. */
export interface WorkerWatch {
  /** The live workers as last counted (at most a heartbeat period ago); undefined before the first count. */
  live(): number | undefined;
  /** Counts at once, then every heartbeat period until `stop()`; each count goes to `record` (the gauges). */
  start(record?: (counts: WorkerCounts) => void): Promise<void>;
  /** Stops counting, once the count in progress is over (the storage may be closed after). */
  stop(): Promise<void>;
}

export interface WorkerWatchOptions {
  storage: Pick<Storage, 'liveWorkers' | 'nextDueAt'>;
  /** The engine's clock: heartbeats are written at its time, and its timers pace the counts. */
  clock: Clock;
  /**
   * Says when no worker has been heard from, and when one is again: the process that accepts
   * (its main thread; the extra HTTP threads count for their `/health` without a word).
   */
  logger?: Logger | undefined;
}

/**
 * Watches whether anyone sends what this process accepts. An API process (`--role api`) accepts
 * sends whether or not a worker process runs on its database; without one, nothing is sent and
 * nothing said so (`/health` ok, every send 200). `/health` answers the count as `workers`, the
 * gauges `spillway_workers_live` and `spillway_backlog_age_seconds` serve it for alerts, and the
 * log says when the last worker went and when one came back. Counted on the heartbeat period,
 * so that neither `/health` nor a scrape reads the database.
 */
export function createWorkerWatch(options: WorkerWatchOptions): WorkerWatch {
  const { storage, clock, logger } = options;
  let live: number | undefined;
  /** What the log said last: nothing yet, that a worker runs, or that none does. */
  let said: 'nothing' | 'live' | 'none' = 'nothing';
  let startedAt = 0;
  let failing = false;
  let record: ((counts: WorkerCounts) => void) | undefined;
  let timer: TimerHandle | null = null;
  /** The counts in progress and waiting, one after the other. */
  let counting: Promise<void> = Promise.resolve();
  /** A count waits behind the one in progress: a period's tick adds none. */
  let waiting = false;
  let started = false;
  let stopped = false;

  const tell = (counts: WorkerCounts, now: number) => {
    if (counts.live > 0) {
      if (said === 'none') logger?.info({ workers: counts.live }, 'a worker is live on the database again: accepted messages are sent');
      said = 'live';
      return;
    }
    // A worker started with this process (its workers' thread, a worker process started beside
    // it) is heard from within a heartbeat or two: before the stale time, none is no news yet.
    if (said === 'none' || (said === 'nothing' && now - startedAt < STALE_WORKER_MS)) return;
    logger?.warn(
      { workers: 0, backlogAgeSeconds: counts.backlogAgeSeconds },
      'no live worker on the database: accepted messages wait, unsent, until a worker runs (spillway serve --role worker or all)',
    );
    said = 'none';
  };

  async function count(): Promise<void> {
    const now = clock.now();
    try {
      const [workers, due] = await Promise.all([storage.liveWorkers(now, STALE_WORKER_MS), storage.nextDueAt(now)]);
      const counts = { live: workers, backlogAgeSeconds: due !== null && due < now ? (now - due) / 1000 : 0 };
      live = workers;
      failing = false;
      record?.(counts);
      tell(counts, now);
    } catch (error) {
      // The last count stands; said once, not every period while the database is away.
      if (!failing) logger?.warn({ err: error }, 'could not count the live workers: /health and the worker gauges keep the last count');
      failing = true;
    }
  }

  /**
   * Every period on the clock, whatever a count takes (a fake clock's periods pass as fast as a
   * test advances it): a count after the one in progress, at most one waiting, so that a slow
   * database never piles them up, and the last count reads the clock after the last period.
   */
  const tick = () => {
    if (stopped) return;
    timer = clock.setTimeout(tick, HEARTBEAT_MS);
    if (waiting) return;
    waiting = true;
    counting = counting.then(() => {
      waiting = false;
      return stopped ? undefined : count();
    });
  };

  return {
    live: () => live,
    async start(recordCounts) {
      if (started || stopped) return;
      started = true;
      record = recordCounts;
      startedAt = clock.now();
      counting = count();
      await counting;
      timer = clock.setTimeout(tick, HEARTBEAT_MS);
    },
    async stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
      await counting;
    },
  };
}
