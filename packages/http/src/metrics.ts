import { isFinalStatus } from '@spillway/core';
import type { Commit } from '@spillway/core';
import type { MiddlewareHandler } from 'hono';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';
import type { Env } from './env.ts';
import { RequestMetrics } from './request-metrics.ts';
import type { RequestSeries } from './request-metrics.ts';

/**
 * The metric of that name already on `registry` (a host's registry, a second app on it), else a
 * new one: prom-client throws "already registered" on a second registration.
 */
export function sharedMetric<T extends Metric>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** Prometheus metrics of one app, on its own registry (never prom-client's global one). */
export interface HttpMetrics {
  registry: Registry;
  /** Counts and times every request by method, route pattern and status. */
  middleware: MiddlewareHandler<Env>;
  /** Counts and times one request answered outside the middleware (the direct routes). */
  record(method: string, route: string, status: number, seconds: number): void;
}

/** The request counter's name. */
const REQUESTS_TOTAL = 'spillway_http_requests_total';

/**
 * Creates the request counter and duration histogram on `registry` (a new one by default) and
 * the process metrics of `collectDefaultMetrics`. Routes are labelled by their pattern
 * (`/bat/message/:messageId`), unmatched requests as `unmatched`, so label cardinality stays bounded.
 */
export function createHttpMetrics(registry: Registry = new Registry(), options: { defaultMetrics?: boolean } = {}): HttpMetrics {
  // A host that already collects them (on this registry, without a prefix) keeps its own.
  if ((options.defaultMetrics ?? true) && !registry.getSingleMetric('process_cpu_user_seconds_total')) {
    collectDefaultMetrics({ register: registry });
  }
  // Counted in plain numbers (RequestMetrics); a second app on the same registry adds to the same series.
  const requests =
    RequestMetrics.on(registry, REQUESTS_TOTAL) ??
    new RequestMetrics(
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      { counter: REQUESTS_TOTAL, histogram: 'spillway_http_request_duration_seconds' },
      {
        counter: 'HTTP requests answered, by method, route and status',
        histogram: 'HTTP request duration in seconds, by method, route and status',
      },
    ).registerOn(registry);
  const record = (method: string, route: string, status: number, seconds: number) => requests.record(method, route, status, seconds);
  const middleware: MiddlewareHandler<Env> = async (c, next) => {
    // Wall time, not the engine clock: a fake clock would make every duration zero.
    const started = performance.now();
    try {
      await next();
    } finally {
      record(c.req.method, c.get('routeId') ?? 'unmatched', c.res.status, (performance.now() - started) / 1000);
    }
  };
  return { registry, middleware, record };
}

/** Request figures taken from one registry, to add to another ({@link takeRequestCounts}, {@link addRequestCounts}). */
export type RequestCounts = RequestSeries[];

/**
 * The request figures counted on `registry` (by {@link createHttpMetrics}) since the last call,
 * counted afresh from there: an HTTP thread sends them to the thread whose registry serves
 * `/metrics`, which adds them ({@link addRequestCounts}). Empty when the registry counts none.
 */
export function takeRequestCounts(registry: Registry): RequestCounts {
  return RequestMetrics.on(registry, REQUESTS_TOTAL)?.takeCounts() ?? [];
}

/** Adds request figures taken from another registry ({@link takeRequestCounts}) to those counted on `registry`. */
export function addRequestCounts(registry: Registry, counts: RequestCounts): void {
  RequestMetrics.on(registry, REQUESTS_TOTAL)?.addCounts(counts);
}

/**
 * What the engine metrics count of commits: history entries by channel and status, messages that
 * reached a final status by status. Plain data, so that a workers' thread can send its counts to
 * the thread whose registry serves `/metrics`.
 */
export interface EngineCounts {
  events: Array<[channel: string, status: string, n: number]>;
  finished: Array<[status: string, n: number]>;
}

/** Adds the history entries and final statuses of `commit` to `into` (new counts by default). */
export function countCommit(commit: Commit, into: EngineCounts = { events: [], finished: [] }): EngineCounts {
  // Counted per label set first: prom-client hashes the labels on every inc, and a round carries
  // hundreds of entries of a handful of kinds.
  for (const u of commit.updates) {
    for (const h of u.history) {
      const counted = into.events.find(([channel, status]) => channel === h.channel && status === h.status);
      if (counted) counted[2]++;
      else into.events.push([h.channel, h.status, 1]);
    }
    // A Read after its Delivered leaves the message `delivered`: finished once, not again.
    if (u.finished ?? isFinalStatus(u.status)) {
      const counted = into.finished.find(([status]) => status === u.status);
      if (counted) counted[1]++;
      else into.finished.push([u.status, 1]);
    }
  }
  return into;
}

/**
 * Engine metrics on `registry`: every history entry the workers write (attempts sent, delivered,
 * failed, expired, skipped, by channel) and every message reaching a final status. Pass
 * `onCommit` to `createEngine({ onCommit })`; `record` adds counts made elsewhere (a workers'
 * thread's, from {@link countCommit}).
 */
export function createEngineMetrics(registry: Registry): { onCommit: (commit: Commit) => void; record: (counts: EngineCounts) => void } {
  const events = sharedMetric(
    registry,
    'spillway_message_events_total',
    () =>
      new Counter({
        name: 'spillway_message_events_total',
        help: 'History entries written by the engine, by channel and status (Sent, Delivered, Failed, Expired, ...)',
        labelNames: ['channel', 'status'] as const,
        registers: [registry],
      }),
  );
  const finished = sharedMetric(
    registry,
    'spillway_messages_finished_total',
    () =>
      new Counter({
        name: 'spillway_messages_finished_total',
        help: 'Messages and cascades that reached a final status, by status',
        labelNames: ['status'] as const,
        registers: [registry],
      }),
  );
  const record = (counts: EngineCounts) => {
    for (const [channel, status, n] of counts.events) events.inc({ channel, status }, n);
    for (const [status, n] of counts.finished) finished.inc({ status }, n);
  };
  return { onCommit: (commit) => record(countCommit(commit)), record };
}

/** What {@link createWorkerMetrics} serves: the workers seen live on the database, and the backlog nobody takes. */
export interface WorkerCounts {
  /** Workers that heartbeat within the stale time and did not retire. */
  live: number;
  /** How long the oldest message whose work is due, and that no worker holds, has waited, in seconds; 0 when none waits. */
  backlogAgeSeconds: number;
}

/**
 * Gauges of the workers on the database, for alerts: `spillway_workers_live` (0 while messages
 * are accepted means nothing is sent) and `spillway_backlog_age_seconds` (how far the workers are
 * behind). `record` sets them from a count made elsewhere (the reference server counts every
 * heartbeat period), so that a scrape reads no database.
 */
export function createWorkerMetrics(registry: Registry): { record: (counts: WorkerCounts) => void } {
  const live = sharedMetric(
    registry,
    'spillway_workers_live',
    () =>
      new Gauge({
        name: 'spillway_workers_live',
        help: 'Workers heard from on the database within the last 5 s (0: what is accepted is not sent)',
        registers: [registry],
      }),
  );
  const backlog = sharedMetric(
    registry,
    'spillway_backlog_age_seconds',
    () =>
      new Gauge({
        name: 'spillway_backlog_age_seconds',
        help: 'How long the oldest message whose work is due, and that no worker holds, has waited (0: none waits)',
        registers: [registry],
      }),
  );
  return {
    record(counts) {
      live.set(counts.live);
      backlog.set(counts.backlogAgeSeconds);
    },
  };
}
