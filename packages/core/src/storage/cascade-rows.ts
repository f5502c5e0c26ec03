import type { RouteBinding, RouteDefinition, ShortLink, StoredRoute } from '../ports/cascade-storage.ts';

/** A route revision row (`cascade_routes` joined with `cascade_route_revisions`), definition parsed. */
export interface RouteRow {
  id: string;
  account_id: number;
  revision: number;
  created_at: number;
  definition: RouteDefinition;
  updated_at: number;
}

/** A `short_links` row. */
export interface ShortLinkRow {
  code: string;
  account_id: number;
  message_id: number;
  url: string;
  clicks: number;
  created_at: number;
}

/** A `cascade_route_bindings` row. */
export interface RouteBindingRow {
  alpha_name: string;
  route_id: string;
}

/** Maps a parsed route revision row to the stored route. */
export function storedRouteFromRow(row: RouteRow): StoredRoute {
  return {
    ...row.definition,
    id: row.id,
    revision: row.revision,
    accountId: row.account_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a `short_links` row to the short link. */
export function shortLinkFromRow(row: ShortLinkRow): ShortLink {
  return {
    code: row.code,
    accountId: row.account_id,
    messageId: row.message_id,
    url: row.url,
    clicks: row.clicks,
    createdAt: row.created_at,
  };
}

/** The JSON text stored as a route revision's definition: only the graph; id and revision live in their columns. */
export function routeDefinitionJson(route: RouteDefinition): string {
  return JSON.stringify({ name: route.name, start: route.start, steps: route.steps, edges: route.edges });
}

/**
 * The `alpha_name` key of a binding: '' stands for the account default, since NULL cannot sit in
 * a primary key; it sorts before every alpha-name, so `ORDER BY alpha_name DESC` puts an
 * alpha-name's own binding before the default.
 */
export function routeBindingKey(alphaName: string | null): string {
  return alphaName ?? '';
}

/** Maps a `cascade_route_bindings` row to the binding ('' back to the account default, null). */
export function routeBindingFromRow(row: RouteBindingRow): RouteBinding {
  return { alphaName: row.alpha_name === '' ? null : row.alpha_name, routeId: row.route_id };
}
