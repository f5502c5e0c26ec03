import type { RouteStatsView } from '../api/api-client.ts';
import type { CanvasHighlight } from '../canvas/flow-elements.ts';

const percent = (part: number, whole: number) => (whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`);

/** Seconds as the shortest readable duration: `45 s`, `12 min`, `3.5 h`. */
export function duration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** The stats as figures on the canvas: per step reached, delivered (rate), median time; per edge how many fell through. */
export function trafficNotes(stats: RouteStatsView): CanvasHighlight {
  const stepNotes: Record<string, string> = {};
  for (const s of stats.steps) {
    stepNotes[s.id] =
      s.reached === 0
        ? 'no traffic'
        : `${s.reached} reached · ${s.delivered} delivered (${percent(s.delivered, s.reached)})${s.medianSeconds === null ? '' : ` · median ${duration(s.medianSeconds)}`}`;
  }
  const edgeNotes: Record<number, string> = {};
  for (const e of stats.edges) {
    const from = stats.steps.find((s) => s.id === e.from);
    edgeNotes[e.index] = `${e.taken}${from && from.reached > 0 ? ` (${percent(e.taken, from.reached)})` : ''}`;
  }
  return { stepNotes, edgeNotes, taken: stats.edges.filter((e) => e.taken > 0).map((e) => e.index) };
}
