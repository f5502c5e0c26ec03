import type Database from 'better-sqlite3';
import type { DeliveryStatus, HistoryStatus, RouteStatsStorage } from '@spillway/core';
import type { RouteTraffic } from '@spillway/core/storage';

interface TrafficRow {
  id: number;
  status: DeliveryStatus;
  created_at: number;
  cost: number;
  steps: string;
}
interface HistoryRow {
  message_id: number;
  step: number;
  status: HistoryStatus;
  at: number;
  error: string | null;
}

/** Route stats over the messages and history of the SQLite storage (`storage.db`). */
export function createSqliteRouteStats(db: Database.Database): RouteStatsStorage {
  const messages = db.prepare<[number, string, number, number, number], TrafficRow>(
    `SELECT id, status, created_at, cost, steps FROM messages
      WHERE account_id = ? AND route_ref = ? AND created_at >= ? AND created_at < ?
      ORDER BY created_at DESC, id DESC LIMIT ?`,
  );
  const history = db.prepare<[string], HistoryRow>(
    `SELECT message_id, step, status, at, error FROM history
      WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, seq`,
  );
  return {
    async routeTraffic(query) {
      const found = messages.all(query.accountId, query.routeRef, query.since, query.until, query.limit);
      const byMessage = new Map<number, RouteTraffic>(
        found.map((m) => [
          m.id,
          {
            messageId: m.id,
            status: m.status,
            createdAt: m.created_at,
            cost: m.cost,
            stepCosts: (JSON.parse(m.steps) as { cost?: number }[]).map((s) => s.cost ?? 0),
            history: [],
          },
        ]),
      );
      if (found.length > 0) {
        for (const h of history.all(JSON.stringify(found.map((m) => m.id)))) {
          byMessage.get(h.message_id)?.history.push({ step: h.step, status: h.status, at: h.at, error: h.error });
        }
      }
      return [...byMessage.values()];
    },
  };
}
