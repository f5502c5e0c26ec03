import { isFinalStatus } from '@spillway/core';
import type { Commit } from '@spillway/core';
import type { MiddlewareHandler } from 'hono';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';
import type { Env } from './env.ts';

/**
 * The metric of that name already on `registry` (a host's registry, a second app on it), else a
 * new one: prom-client throws "already registered" on a second registration.
 */
function shared<T extends Metric>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** Prometheus metrics of one app, on its own registry (never prom-client's global one). */
export interface HttpMetrics {
  registry: Registry;
  /** Counts and times every request by method, route pattern and status. */
  middleware: MiddlewareHandler<Env>;
}

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
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = shared(
    registry,
    'spillway_http_requests_total',
    () =>
      new Counter({
        name: 'spillway_http_requests_total',
        help: 'HTTP requests answered, by method, route and status',
        labelNames,
        registers: [registry],
      }),
  );
  const duration = shared(
    registry,
    'spillway_http_request_duration_seconds',
    () =>
      new Histogram({
        name: 'spillway_http_request_duration_seconds',
        help: 'HTTP request duration in seconds, by method, route and status',
        labelNames,
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
  );

  // The children of each label set, kept: prom-client hashes a labels object on every inc and
  // observe otherwise. Bounded like the labels themselves (methods x route patterns x statuses).
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();
  const childOf = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method, route, status: String(status) };
      children.set(key, (child = { count: requests.labels(labels), time: duration.labels(labels) }));
    }
    return child;
  };

  const middleware: MiddlewareHandler<Env> = async (c, next) => {
    // Wall time, not the engine clock: a fake clock would make every duration zero.
    const started = performance.now();
    try {
      await next();
    } finally {
      const child = childOf(c.req.method, c.get('routeId') ?? 'unmatched', c.res.status);
      child.count.inc();
      child.time.observe((performance.now() - started) / 1000);
    }
  };
  return { registry, middleware };
}

/**
 * Engine metrics on `registry`: every history entry the workers write (attempts sent, delivered,
 * failed, expired, skipped, by channel) and every message reaching a final status. Pass
 * `onCommit` to `createEngine({ onCommit })`.
 */
export function createEngineMetrics(registry: Registry): { onCommit: (commit: Commit) => void } {
  const events = shared(
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
  const finished = shared(
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
  return {
    onCommit(commit) {
      // Counted per label set first: prom-client hashes the labels on every inc, and a round
      // carries hundreds of entries of a handful of kinds.
      const byEntry = new Map<string, { channel: string; status: string; n: number }>();
      const byFinal = new Map<string, number>();
      for (const u of commit.updates) {
        for (const h of u.history) {
          const key = `${h.channel} ${h.status}`;
          const counted = byEntry.get(key);
          if (counted) counted.n++;
          else byEntry.set(key, { channel: h.channel, status: h.status, n: 1 });
        }
        if (isFinalStatus(u.status)) byFinal.set(u.status, (byFinal.get(u.status) ?? 0) + 1);
      }
      for (const { channel, status, n } of byEntry.values()) events.inc({ channel, status }, n);
      for (const [status, n] of byFinal) finished.inc({ status }, n);
    },
  };
}
