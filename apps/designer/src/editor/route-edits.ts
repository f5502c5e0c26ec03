import type { ChannelId, Route, RouteEdge, RouteOutcome, RouteStep } from '@spillway/core';

/** A fresh step id for a channel: `sms`, then `sms_2`, `sms_3`, ... */
export function freshStepId(route: Route, base: string): string {
  const taken = new Set(route.steps.map((s) => s.id));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

/** The last step's position moved down a row: where a new step goes when none is given. */
function nextPosition(route: Route): { x: number; y: number } {
  const last = route.steps[route.steps.length - 1]?.position;
  return last ? { x: last.x, y: last.y + 140 } : { x: 0, y: 0 };
}

export function addStep(route: Route, channel: ChannelId, position?: { x: number; y: number }): Route {
  const step: RouteStep = { id: freshStepId(route, channel), channel, position: position ?? nextPosition(route) };
  return { ...route, steps: [...route.steps, step], start: route.steps.length === 0 ? step.id : route.start };
}

/** Why step `id` cannot be renamed to `newId`, or null when it can: ids tell steps apart, so one taken by another step is refused. */
export function stepIdProblem(route: Route, id: string, newId: string): string | null {
  return newId !== id && route.steps.some((s) => s.id === newId) ? `'${newId}' is already the id of another step` : null;
}

/** Changes a step; a new id is carried over to its edges and to the start. An id taken by another step leaves the route as it is. */
export function updateStep(route: Route, id: string, patch: Partial<RouteStep>): Route {
  const newId = patch.id ?? id;
  if (stepIdProblem(route, id, newId)) return route;
  const rename = (s: string) => (s === id ? newId : s);
  return {
    ...route,
    start: rename(route.start),
    steps: route.steps.map((s) => (s.id === id ? dropUndefined({ ...s, ...patch }) : s)),
    edges: newId === id ? route.edges : route.edges.map((e) => ({ ...e, from: rename(e.from), to: rename(e.to) })),
  };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Adds an outcome edge; `not_read` edges start with an hour to wait for the read. */
export function connect(route: Route, from: string, to: string, on: RouteOutcome): Route {
  const edge: RouteEdge = on === 'not_read' ? { from, to, on, afterSeconds: 3600 } : { from, to, on };
  return { ...route, edges: [...route.edges, edge] };
}

export function updateEdge(route: Route, index: number, patch: Partial<RouteEdge>): Route {
  return { ...route, edges: route.edges.map((e, i) => (i === index ? dropUndefined({ ...e, ...patch }) : e)) };
}

/** Removes steps (with every edge touching them) and edges (by index). */
export function remove(route: Route, steps: readonly string[], edges: readonly number[]): Route {
  const gone = new Set(steps);
  const dropped = new Set(edges);
  return {
    ...route,
    steps: route.steps.filter((s) => !gone.has(s.id)),
    edges: route.edges.filter((e, i) => !dropped.has(i) && !gone.has(e.from) && !gone.has(e.to)),
  };
}

/** How far each paste moves copied steps right and down. */
const PASTE_OFFSET = 40;

/**
 * The offset that moves the copied steps clear of the route's: one step of `PASTE_OFFSET`, then
 * another while any copied step would land exactly on a step already there (pasting twice).
 */
function pasteOffset(route: Route, copied: readonly RouteStep[]): number {
  const taken = new Set(route.steps.flatMap((s) => (s.position ? [`${s.position.x},${s.position.y}`] : [])));
  const lands = (offset: number) => copied.some((s) => s.position && taken.has(`${s.position.x + offset},${s.position.y + offset}`));
  let offset = PASTE_OFFSET;
  // Bounded by the number of steps: each one can block at most one offset.
  while (lands(offset)) offset += PASTE_OFFSET;
  return offset;
}

/**
 * Pastes copied steps with fresh ids, moved right and down clear of the steps already there,
 * keeping the edges among them. Answers the route and the ids of the new steps.
 */
export function paste(route: Route, copied: { steps: RouteStep[]; edges: RouteEdge[] }): { route: Route; ids: string[] } {
  let next = route;
  const renamed = new Map<string, string>();
  const offset = pasteOffset(route, copied.steps);
  for (const step of copied.steps) {
    const id = freshStepId(next, step.id.replace(/_\d+$/, ''));
    renamed.set(step.id, id);
    const position = step.position ? { x: step.position.x + offset, y: step.position.y + offset } : undefined;
    next = { ...next, steps: [...next.steps, { ...step, id, ...(position ? { position } : {}) }] };
  }
  const edges = copied.edges
    .filter((e) => renamed.has(e.from) && renamed.has(e.to))
    .map((e) => ({ ...e, from: renamed.get(e.from) as string, to: renamed.get(e.to) as string }));
  return { route: { ...next, edges: [...next.edges, ...edges] }, ids: [...renamed.values()] };
}

/** The steps with these ids and the edges among them, for the clipboard. */
export function copy(route: Route, ids: readonly string[]): { steps: RouteStep[]; edges: RouteEdge[] } {
  const chosen = new Set(ids);
  return { steps: route.steps.filter((s) => chosen.has(s.id)), edges: route.edges.filter((e) => chosen.has(e.from) && chosen.has(e.to)) };
}

/** A new route of one SMS step, as the "New route" button starts it. */
export function blankRoute(name = 'New route'): Route {
  return { name, start: 'sms', steps: [{ id: 'sms', channel: 'sms', position: { x: 0, y: 0 } }], edges: [] };
}
