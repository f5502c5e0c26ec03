import type { RouteTraffic } from '../ports/route-stats.ts';
import type { Route, RouteOutcome } from '../types/route.ts';
import { fromMicros } from '../engine/money.ts';

/** Counts of one step over a window. */
export interface StepStats {
  id: string;
  /** Cascades that reached the step (sent, failed or skipped there). */
  reached: number;
  delivered: number;
  read: number;
  failed: number;
  expired: number;
  skipped: number;
  /** Median seconds from the step's first to its last history entry, to the millisecond; null without traffic. */
  medianSeconds: number | null;
  /** Currency units charged for the step. */
  cost: number;
}

/** Cascades that fell through one edge. */
export interface EdgeStats {
  index: number;
  from: string;
  to: string;
  on: RouteOutcome;
  taken: number;
}

/** Traffic of a route over a period, per step and per edge (the designer's traffic view). */
export interface RouteStats {
  route: string;
  since: string;
  until: string;
  /** Cascades counted (at most the query's limit, the newest first). */
  cascades: number;
  byStatus: Record<string, number>;
  cost: number;
  steps: StepStats[];
  edges: EdgeStats[];
}

const median = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * Milliseconds as seconds to the millisecond: whole milliseconds over 1000 print as at most 3
 * decimals (5.102), where the mean of two such seconds printed as 5.101500000000001.
 */
const secondsOf = (ms: number | null): number | null => (ms === null ? null : Math.round(ms) / 1000);

/** How the cascade left a step, from that step's own history. */
function leftOn(entries: RouteTraffic['history']): RouteOutcome {
  const last = entries.filter((e) => e.status !== 'Clicked' && e.status !== 'Superseded').at(-1);
  if (last?.status === 'Failed' && last.error?.startsWith('permanent')) return 'permanenterror';
  if (last?.status === 'Expired') return entries.some((e) => e.status === 'Delivered') ? 'not_read' : 'expired';
  return 'undeliverable';
}

/**
 * Aggregates the cascades of one route revision: per step, how many reached it, were delivered,
 * read, failed, expired or skipped there, the median time spent in it and its cost; per edge, how
 * many fell through it (consecutive steps of the history, joined by the outcome that left the first).
 */
export function aggregateRouteStats(
  route: Route,
  routeRef: string,
  traffic: readonly RouteTraffic[],
  window: { since: number; until: number },
): RouteStats {
  const steps = route.steps.map((s): StepStats & { /** ms spent in the step, per cascade */ times: number[]; micros: number } => ({
    id: s.id,
    reached: 0,
    delivered: 0,
    read: 0,
    failed: 0,
    expired: 0,
    skipped: 0,
    medianSeconds: null,
    cost: 0,
    times: [],
    micros: 0,
  }));
  const edges = route.edges.map((e, index): EdgeStats => ({ index, from: e.from, to: e.to, on: e.on, taken: 0 }));
  const byStatus: Record<string, number> = {};
  let cost = 0;
  for (const cascade of traffic) {
    byStatus[cascade.status] = (byStatus[cascade.status] ?? 0) + 1;
    cost += cascade.cost;
    const order: number[] = [];
    for (const h of cascade.history) if (h.status !== 'Clicked' && h.status !== 'Superseded' && !order.includes(h.step)) order.push(h.step);
    for (const i of order) {
      const stat = steps[i];
      if (!stat) continue;
      const entries = cascade.history.filter((h) => h.step === i);
      const has = (status: string) => entries.some((h) => h.status === status);
      stat.reached++;
      if (has('Delivered') || has('Read')) stat.delivered++;
      if (has('Read')) stat.read++;
      if (has('Failed')) stat.failed++;
      if (has('Expired')) stat.expired++;
      if (entries.every((h) => h.status === 'Skipped' || h.status === 'Clicked')) stat.skipped++;
      stat.times.push((entries.at(-1)?.at ?? 0) - (entries[0]?.at ?? 0));
      if (has('Sent') || has('Failed')) stat.micros += cascade.stepCosts[i] ?? 0;
    }
    for (let k = 0; k + 1 < order.length; k++) {
      const from = route.steps[order[k] as number]?.id;
      const to = route.steps[order[k + 1] as number]?.id;
      const on = leftOn(cascade.history.filter((h) => h.step === order[k]));
      const edge = edges.find((e) => e.from === from && e.to === to && e.on === on) ?? edges.find((e) => e.from === from && e.to === to);
      if (edge) edge.taken++;
    }
  }
  return {
    route: routeRef,
    since: new Date(window.since).toISOString(),
    until: new Date(window.until).toISOString(),
    cascades: traffic.length,
    byStatus,
    cost: fromMicros(cost),
    steps: steps.map(({ times, micros, ...s }) => ({ ...s, medianSeconds: secondsOf(median(times)), cost: fromMicros(micros) })),
    edges,
  };
}
