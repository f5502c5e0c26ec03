import type { Registry } from 'prom-client';

/** The labels of a request's metrics: method, route pattern and status. */
export type RequestLabels = { method: string; route: string; status: string };

/** One label set's figures. */
export interface RequestSeries {
  labels: RequestLabels;
  /** Requests counted (the counter's value, the histogram's `_count`). */
  count: number;
  /** Seconds, summed (the histogram's `_sum`). */
  sum: number;
  /** Requests by the first bucket bound at or above their duration; the last slot is past every bound. */
  buckets: number[];
}

/** A value as prom-client's registry formats it: `labels` first, then the series' own `sharedLabels`. */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels?: RequestLabels;
  value: number;
  metricName?: string;
  exemplar?: null | undefined;
}

/**
 * The request counter and duration histogram of the HTTP layer, counted in plain numbers and
 * handed to prom-client's registry as two metrics that format exactly as prom-client's own
 * `Counter` and `Histogram` do (a test compares them). prom-client's `inc` and `observe` validate
 * and hash the labels of a child on every call: about 2 µs of the HTTP thread a request, some 5 %
 * of a single send's (`docs/decisions.md`, "Speed, twelfth pass"). Here a request adds to the
 * series its labels were first seen with, and the registry reads the series when scraped.
 */
export class RequestMetrics {
  private readonly series: RequestSeries[] = [];
  /** The series of each label set, by `method route status`: bounded like the labels themselves. */
  private readonly byKey = new Map<string, RequestSeries>();

  constructor(
    readonly bounds: readonly number[],
    readonly names: { counter: string; histogram: string },
    readonly help: { counter: string; histogram: string },
  ) {}

  /** Counts one request of `seconds`. */
  record(method: string, route: string, status: number, seconds: number): void {
    const series = this.seriesOf(method, route, status);
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    series.buckets[i]!++;
    series.count++;
    series.sum += seconds;
  }

  /**
   * The figures counted since the last call, which are counted afresh from zero: a thread that
   * serves requests sends them to the thread whose registry serves `/metrics` ({@link addCounts}).
   * Only series with requests are taken.
   */
  takeCounts(): RequestSeries[] {
    const taken: RequestSeries[] = [];
    for (const s of this.series) {
      if (s.count === 0) continue;
      taken.push({ labels: { ...s.labels }, count: s.count, sum: s.sum, buckets: [...s.buckets] });
      s.count = 0;
      s.sum = 0;
      s.buckets.fill(0);
    }
    return taken;
  }

  /** Adds figures counted elsewhere ({@link takeCounts} of another thread's instance, with the same bounds). */
  addCounts(taken: readonly RequestSeries[]): void {
    for (const t of taken) {
      const series = this.seriesOf(t.labels.method, t.labels.route, t.labels.status);
      series.count += t.count;
      series.sum += t.sum;
      t.buckets.forEach((n, i) => {
        if (i < series.buckets.length) series.buckets[i]! += n;
      });
    }
  }

  /** The instance whose counter is registered on `registry` under `name`, if any. */
  static on(registry: Registry, name: string): RequestMetrics | undefined {
    return (registry.getSingleMetric(name) as unknown as { requestMetrics?: RequestMetrics } | undefined)?.requestMetrics;
  }

  /** Registers the counter and the histogram on `registry`; answers this instance. */
  registerOn(registry: Registry): this {
    // As prom-client's: the label sets go with their figures.
    const reset = () => {
      this.series.length = 0;
      this.byKey.clear();
    };
    const counter = {
      requestMetrics: this,
      name: this.names.counter,
      help: this.help.counter,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...this.head(counter), values: this.series.map((s) => ({ value: s.count, labels: { ...s.labels } })) }),
      reset,
    };
    const histogram = {
      name: this.names.histogram,
      help: this.help.histogram,
      type: 'histogram',
      aggregator: 'sum',
      getForPromString: async () => ({ ...this.head(histogram), values: this.histogramValues() }),
      // As prom-client's get(): each value's series labels after its own.
      get: async () => ({
        ...this.head(histogram),
        values: this.histogramValues().map(({ sharedLabels, labels, ...value }) => ({ ...value, labels: { ...labels, ...sharedLabels } })),
      }),
      reset,
    };
    // The registry's interface is prom-client's Metric class; these two give what it reads of one.
    registry.registerMetric(counter as unknown as Parameters<Registry['registerMetric']>[0]);
    registry.registerMetric(histogram as unknown as Parameters<Registry['registerMetric']>[0]);
    return this;
  }

  /** The series of a label set, made on first use. */
  private seriesOf(method: string, route: string, status: number | string): RequestSeries {
    const key = `${method} ${route} ${status}`;
    let series = this.byKey.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { labels, count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) };
      this.series.push(series);
      this.byKey.set(key, series);
    }
    return series;
  }

  private head(metric: { name: string; help: string; type: string; aggregator: string }) {
    return { name: metric.name, help: metric.help, type: metric.type, aggregator: metric.aggregator };
  }

  /** The histogram's values in prom-client's order: each series' buckets, `+Inf`, `_sum`, `_count`. */
  private histogramValues(): ExportedValue[] {
    const name = this.names.histogram;
    const values: ExportedValue[] = [];
    for (const s of this.series) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        values.push({ labels: { le }, sharedLabels: s.labels, value: cumulative, metricName: `${name}_bucket`, exemplar: null });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum`, exemplar: undefined });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count`, exemplar: undefined });
    }
    return values;
  }
}
