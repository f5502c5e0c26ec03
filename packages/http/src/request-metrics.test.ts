import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createHttpMetrics } from './metrics.ts';
import { RequestMetrics } from './request-metrics.ts';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const NAMES = { counter: 'requests_total', histogram: 'request_seconds' };
const HELP = { counter: 'requests', histogram: 'durations' };

/** prom-client's own Counter and Histogram of the same names, fed the same requests. */
function promClientPair(registry: Registry) {
  const labelNames = ['method', 'route', 'status'] as const;
  const counter = new Counter({ name: NAMES.counter, help: HELP.counter, labelNames, registers: [registry] });
  const histogram = new Histogram({ name: NAMES.histogram, help: HELP.histogram, labelNames, buckets: BOUNDS, registers: [registry] });
  return (method: string, route: string, status: number, seconds: number) => {
    const labels = { method, route, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  };
}

const request = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  route: fc.constantFrom('/health', '/bat/messagelist', '/bat/message/:messageId'),
  status: fc.constantFrom(200, 400, 404),
  // Durations on and around the bounds, and past the last one.
  seconds: fc.oneof(fc.constantFrom(...BOUNDS, 0, 20), fc.double({ min: 0, max: 20, noNaN: true })),
});

describe('RequestMetrics', () => {
  it("formats exactly as prom-client's Counter and Histogram fed the same requests, as text and as JSON", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 60 }), async (requests) => {
        const ours = new Registry();
        const theirs = new Registry();
        const metrics = new RequestMetrics(BOUNDS, NAMES, HELP).registerOn(ours);
        const reference = promClientPair(theirs);
        for (const r of requests) {
          metrics.record(r.method, r.route, r.status, r.seconds);
          reference(r.method, r.route, r.status, r.seconds);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
        expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
        ours.resetMetrics();
        theirs.resetMetrics();
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
      { numRuns: 50 },
    );
  });

  it("sums other threads' figures taken at any time into the one registry, as if it had counted them all", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ r: request, thread: fc.integer({ min: 0, max: 2 }), move: fc.boolean() }), { maxLength: 60 }),
        async (steps) => {
          const all = new Registry();
          const summed = new Registry();
          const reference = new RequestMetrics(BOUNDS, NAMES, HELP).registerOn(all);
          const serving = new RequestMetrics(BOUNDS, NAMES, HELP).registerOn(summed);
          // Thread 0 serves /metrics; 1 and 2 count on their own and send their figures now and then.
          const threads = [serving, new RequestMetrics(BOUNDS, NAMES, HELP), new RequestMetrics(BOUNDS, NAMES, HELP)];
          for (const { r, thread, move } of steps) {
            reference.record(r.method, r.route, r.status, r.seconds);
            threads[thread]!.record(r.method, r.route, r.status, r.seconds);
            if (move && thread > 0) serving.addCounts(threads[thread]!.takeCounts());
          }
          for (const t of threads.slice(1)) serving.addCounts(t.takeCounts());
          expect(threads.slice(1).map((t) => t.takeCounts())).toEqual([[], []]);
          // Series appear in the order first seen: compare the figures by label set (sums added in
          // another order may differ in their last bits).
          const values = async (registry: Registry) =>
            (await registry.getMetricsAsJSON())
              .flatMap((m) => m.values.map((v) => `${m.name}${JSON.stringify(v.labels)} ${v.value.toPrecision(12)}`))
              .sort();
          expect(await values(summed)).toEqual(await values(all));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('is shared by two apps on one registry: one series per label set', async () => {
    const registry = new Registry();
    const first = createHttpMetrics(registry, { defaultMetrics: false });
    const second = createHttpMetrics(registry, { defaultMetrics: false });
    first.record('GET', '/health', 200, 0.002);
    second.record('GET', '/health', 200, 0.02);
    const text = await registry.metrics();
    expect(text).toContain('spillway_http_requests_total{method="GET",route="/health",status="200"} 2');
    expect(text).toContain('spillway_http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/health",status="200"} 1');
    expect(text).toContain('spillway_http_request_duration_seconds_count{method="GET",route="/health",status="200"} 2');
    expect(text.match(/spillway_http_requests_total\{/g)).toHaveLength(1);
  });
});
