import type { Route } from '@spillway/core';

/**
 * The route's step ids in the order a cascade can meet them: the start, then breadth-first along
 * the edges (each step's edges in the route's order), then any step no edge reaches, as stored.
 * Tables of steps follow it rather than the storage order, where a step added later (the start
 * included) comes last.
 */
export function routeOrder(route: Pick<Route, 'start' | 'steps' | 'edges'>): string[] {
  const ids = new Set(route.steps.map((s) => s.id));
  const order = new Set<string>(ids.has(route.start) ? [route.start] : []);
  for (const id of order) for (const edge of route.edges) if (edge.from === id && ids.has(edge.to)) order.add(edge.to);
  for (const id of ids) order.add(id);
  return [...order];
}

/** `items` (steps, or a status record's steps) sorted by `order` of their ids; ids not in it keep their place after. */
export function inRouteOrder<T extends { id: string }>(items: readonly T[], order: readonly string[]): T[] {
  const rank = new Map(order.map((id, i) => [id, i]));
  return items
    .map((item, i) => ({ item, at: rank.get(item.id) ?? order.length + i }))
    .sort((a, b) => a.at - b.at)
    .map((x) => x.item);
}
