import { BUILTIN_ROUTES, SpillwayError, routeSchema } from '@spillway/core';
import { isoTimeSchema } from '@spillway/core/adapter';
import { aggregateRouteStats } from '@spillway/core/storage';
import type { Route, RouteStatsStorage } from '@spillway/core';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { positiveIntParam, readListQuery } from './list-query.ts';

/** Most cascades one stats request reads: the newest ones of the window. */
export const MAX_STATS_CASCADES = 10_000;
const DAY = 86_400_000;

const statsQuerySchema = z.object({
  since: isoTimeSchema({ withoutOffset: 'refuse' })
    .optional()
    .meta({ description: 'Start of the window (default: 24 hours before `until`); ISO 8601 with an offset' }),
  until: isoTimeSchema({ withoutOffset: 'refuse' })
    .optional()
    .meta({ description: 'End of the window (default: now); ISO 8601 with an offset' }),
  revision: positiveIntParam().optional().meta({ description: 'Route revision (default: the latest)' }),
});

const count = z.int().nonnegative();
const routeStatsSchema = z.object({
  route: z.string().meta({ description: 'id@revision' }),
  since: z.iso.datetime(),
  until: z.iso.datetime(),
  cascades: count.meta({ description: `Cascades counted (at most ${MAX_STATS_CASCADES}, the newest first)` }),
  byStatus: z.record(z.string(), count),
  cost: z.number(),
  steps: z.array(
    z.object({
      id: z.string(),
      reached: count,
      delivered: count,
      read: count,
      failed: count,
      expired: count,
      skipped: count,
      medianSeconds: z.number().nullable(),
      cost: z.number(),
    }),
  ),
  edges: z.array(z.object({ index: z.int(), from: z.string(), to: z.string(), on: z.string(), taken: count })),
});

/**
 * Registers `GET /api/routes/{id}/stats`: per step and edge of one route revision, how many of the
 * account's cascades reached it, were delivered there or fell through each edge, over a window.
 */
export function registerRouteStatsApi(app: Hono<Env>, stats: RouteStatsStorage): void {
  defineRoute(
    app,
    {
      method: 'get',
      path: '/api/routes/:id/stats',
      operationId: 'getRouteStats',
      summary: 'Traffic of a route over a window: counts and rates per step and edge',
      description: `Reads the cascades that ran on the revision (at most ${MAX_STATS_CASCADES}, the newest first).`,
      tags: ['routes'],
      auth: 'basic-or-key',
      rateLimit: 'data',
      query: statsQuerySchema,
      responses: {
        200: { description: 'Counts per step and edge', schema: routeStatsSchema },
        404: { description: 'No such route or revision' },
      },
    },
    async (c) => {
      const query = readListQuery(c, statsQuerySchema);
      const until = query.until ?? c.var.engine.clock.now();
      const since = query.since ?? until - DAY;
      if (since >= until)
        throw new SpillwayError('validation_failed', 'Empty window', [{ path: 'since', message: 'must be before until' }]);
      const accountId = c.var.account.id;
      const id = routeIdParam(c);
      const route = await routeRevision(c.var.engine, accountId, id, query.revision);
      const routeRef = `${id}@${route.revision}`;
      const traffic = await stats.routeTraffic({ accountId, routeRef, since, until, limit: MAX_STATS_CASCADES });
      return c.json(aggregateRouteStats(route, routeRef, traffic, { since, until }));
    },
  );
}

/**
 * The `{id}` of a route path. One that holds U+0000 names no route (ids are the server's): a 404,
 * where the engine would refuse the argument with a 400 at an internal path (`arguments[1]`).
 */
export function routeIdParam(c: Context<Env>): string {
  const id = c.req.param('id') ?? '';
  if (id.includes('\u0000')) throw new SpillwayError('not_found', 'route not found');
  return id;
}

/** Largest revision a route can have: PostgreSQL keeps revisions in a 32-bit `integer` column. */
const MAX_STORED_REVISION = 2_147_483_647;

/**
 * One revision of a route of the account (a built-in has only revision 1); the latest without
 * `revision`. Running messages name theirs (`id@revision`), which may be older than the latest,
 * or of a route deleted since: a revision is read from the stored revisions, which a deletion
 * keeps, so the designer can still draw it and count its traffic.
 * @throws SpillwayError `not_found` for an unknown route or revision, and for a deleted route without `revision`.
 */
export async function routeRevision(
  engine: Env['Variables']['engine'],
  accountId: number,
  id: string,
  revision?: number,
): Promise<Route & { revision: number }> {
  const builtin = BUILTIN_ROUTES[id];
  if (builtin) {
    if (revision !== undefined && revision !== builtin.revision)
      throw new SpillwayError('not_found', `route ${id} has no revision ${revision}`);
    return engine.cascades.getRoute(accountId, id);
  }
  if (revision === undefined) return engine.cascades.getRoute(accountId, id);
  // Revisions count up from 1 and a larger one is never stored; PostgreSQL would refuse
  // to compare its column with it (a 500 where SQLite answered 404).
  if (revision > MAX_STORED_REVISION) throw new SpillwayError('not_found', `route ${id} has no revision ${revision}`);
  // A deleted route has no latest, but its revisions are kept.
  const latest = await engine.cascades.getRoute(accountId, id).catch((error: unknown) => {
    if (error instanceof SpillwayError && error.code === 'not_found') return null;
    throw error;
  });
  if (latest?.revision === revision) return latest;
  const stored = await engine.storage.getRouteRevision(id, revision);
  if (!stored || stored.accountId !== accountId) throw new SpillwayError('not_found', `route ${id} has no revision ${revision}`);
  const { accountId: _a, createdAt, updatedAt, id: _id, revision: _revision, ...definition } = stored;
  // Through the schema, as the engine's route views: its members in one order on every storage.
  const { id: _i, revision: _r, ...graph } = routeSchema.parse(definition);
  return {
    ...graph,
    id,
    revision,
    builtin: false,
    createdAt: new Date(createdAt).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
  } as Route & {
    revision: number;
  };
}
