import type pg from 'pg';
import type { DeliveryStatus, HistoryStatus, RouteStatsStorage } from '@spillway/core';
import type { RouteTraffic } from '@spillway/core/storage';
import { rows, schemaPrefix } from './pg-util.ts';

/** Route stats over the messages and history of the PostgreSQL storage (`storage.pool`, `storage.schema`). */
export function createPostgresRouteStats(pool: pg.Pool, schema = 'public'): RouteStatsStorage {
  const x = schemaPrefix(schema);
  return {
    async routeTraffic(query) {
      const found = await rows<{ id: number; status: DeliveryStatus; created_at: number; cost: number; steps: { cost?: number }[] }>(
        pool,
        `SELECT id, status, created_at, cost, steps FROM ${x}messages
          WHERE account_id = $1 AND route_ref = $2 AND created_at >= $3 AND created_at < $4
          ORDER BY created_at DESC, id DESC LIMIT $5`,
        [query.accountId, query.routeRef, query.since, query.until, query.limit],
      );
      const byMessage = new Map<number, RouteTraffic>(
        found.map((m) => [
          m.id,
          {
            messageId: m.id,
            status: m.status,
            createdAt: m.created_at,
            cost: m.cost,
            stepCosts: m.steps.map((s) => s.cost ?? 0),
            history: [],
          },
        ]),
      );
      if (found.length > 0) {
        const history = await rows<{ message_id: number; step: number; status: HistoryStatus; at: number; error: string | null }>(
          pool,
          `SELECT message_id, step, status, at, error FROM ${x}history WHERE message_id = ANY($1::bigint[]) ORDER BY message_id, seq`,
          [found.map((m) => m.id)],
        );
        for (const h of history) byMessage.get(h.message_id)?.history.push({ step: h.step, status: h.status, at: h.at, error: h.error });
      }
      return [...byMessage.values()];
    },
  };
}
