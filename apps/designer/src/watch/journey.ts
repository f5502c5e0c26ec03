import type { Route, RouteOutcome } from '@spillway/core';
import type { CascadeStatus } from '../api/api-client.ts';
import type { CanvasHighlight } from '../canvas/flow-elements.ts';

/** How a step was left, read from its history: the outcome edge the engine took. */
function outcomeOf(entries: CascadeStatus['history']): RouteOutcome {
  const last = entries.filter((e) => e.status !== 'Clicked' && e.status !== 'Superseded').at(-1);
  if (last?.status === 'Failed' && last.error?.startsWith('permanent')) return 'permanenterror';
  if (last?.status === 'Expired') return entries.some((e) => e.status === 'Delivered') ? 'not_read' : 'expired';
  return 'undeliverable';
}

/**
 * A cascade's journey on its route: each step's status, the step under way, and the edges
 * taken (consecutive steps of the history, joined by the edge of the outcome that left the first).
 */
export function journeyOf(route: Route, status: CascadeStatus): CanvasHighlight {
  const stepStatus: Record<string, string | null> = {};
  for (const s of status.steps) stepStatus[s.id] = s.status;
  const order: number[] = [];
  for (const h of status.history)
    if (h.status !== 'Clicked' && h.status !== 'Superseded' && order.at(-1) !== h.step && !order.includes(h.step)) order.push(h.step);
  const taken: number[] = [];
  for (let i = 0; i + 1 < order.length; i++) {
    const from = status.steps[order[i] as number]?.id;
    const to = status.steps[order[i + 1] as number]?.id;
    const on = outcomeOf(status.history.filter((h) => h.step === order[i]));
    let index = route.edges.findIndex((e) => e.from === from && e.to === to && e.on === on);
    if (index < 0) index = route.edges.findIndex((e) => e.from === from && e.to === to);
    if (index >= 0) taken.push(index);
  }
  const last = status.steps[order.at(-1) ?? -1];
  return { stepStatus, taken, active: status.status === 'processing' && last ? last.id : null };
}
