import { routeSchema, validateRoute } from '@spillway/core';
import { issuesToDetails } from '@spillway/core/adapter';
import type { Route } from '@spillway/core';

/** What a problem points at: a step (by id), an edge (by index in `edges`) or the route itself. */
export type ProblemTarget = { kind: 'step'; id: string } | { kind: 'edge'; index: number } | { kind: 'route' };

export interface Problem {
  path: string;
  message: string;
  target: ProblemTarget;
}

/** The step or edge a detail path (`steps[2].id`, `edges[0].on`, `start`) is about. */
export function targetOf(route: Route, path: string): ProblemTarget {
  const step = /^steps\[(\d+)\]/.exec(path);
  if (step) {
    const id = route.steps[Number(step[1])]?.id;
    return id === undefined ? { kind: 'route' } : { kind: 'step', id };
  }
  const edge = /^edges\[(\d+)\]/.exec(path);
  if (edge) return { kind: 'edge', index: Number(edge[1]) };
  return { kind: 'route' };
}

/**
 * Every problem of a draft: the schema's (names, ids, limits) and the graph's, from core's own
 * `validateRoute` (unreachable step, cycle, duplicate outcome edge, missing start). Empty: the
 * route can be saved.
 */
export function routeProblems(route: Route): Problem[] {
  const details = [];
  const parsed = routeSchema.safeParse(route);
  if (!parsed.success) details.push(...issuesToDetails(parsed.error.issues));
  details.push(...validateRoute(route));
  const seen = new Set<string>();
  return details
    .filter((d) => {
      const key = `${d.path}\u0000${d.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((d) => ({ ...d, target: targetOf(route, d.path) }));
}
