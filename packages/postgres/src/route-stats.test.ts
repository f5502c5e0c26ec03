import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresRouteStats } from './route-stats.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

// Needs a PostgreSQL server: run with DATABASE_URL=postgres://... set.
const url = process.env.DATABASE_URL;

describe.skipIf(!url)('postgres route stats', () => {
  let db: TestDatabase;
  beforeAll(() => {
    db = createTestDatabase(url!);
  });
  afterAll(() => db.end());

  it('reads the cascades of one route revision in the window, newest first, with their history in order', async () => {
    const storage = await db.storage();
    try {
      const account = await storage.createAccount({ login: 'stats', name: 'Stats', passwordHash: 'x', currency: 'EUR' }, 0);
      const x = `"${storage.schema}".`;
      const [list] = (
        await storage.pool.query(`INSERT INTO ${x}message_lists (account_id, created_at) VALUES ($1, 0) RETURNING id`, [account.id])
      ).rows;
      const insert = async (routeRef: string, createdAt: number, status: string) =>
        (
          await storage.pool.query(
            `INSERT INTO ${x}messages (list_id, account_id, kind, content, steps, status, snapshot, route_ref, created_at, updated_at, due_at, cost)
             VALUES ($1, $2, 'cascade', '{}', $3, $4, '{}', $5, $6, $6, $6, 80000) RETURNING id`,
            [list.id, account.id, JSON.stringify([{ cost: 30000 }, { cost: 50000 }]), status, routeRef, createdAt],
          )
        ).rows[0].id as string;
      // BIGINT ids come back as text from a raw query; the adapter answers numbers.
      const a = Number(await insert('rt_1@2', 1000, 'delivered'));
      const b = Number(await insert('rt_1@2', 2000, 'processing'));
      await insert('rt_1@1', 1500, 'delivered'); // another revision
      await insert('rt_1@2', 9000, 'delivered'); // outside the window
      for (const [message, step, status, at, error] of [
        [a, 0, 'Sent', 1000, null],
        [a, 0, 'Failed', 1200, 'undeliverable: gone'],
        [a, 1, 'Sent', 1200, null],
        [a, 1, 'Delivered', 1400, null],
        [b, 0, 'Sent', 2000, null],
      ] as const) {
        await storage.pool.query(
          `INSERT INTO ${x}history (message_id, step, channel, status, at, error) VALUES ($1, $2, 'sms', $3, $4, $5)`,
          [message, step, status, at, error],
        );
      }
      const traffic = await createPostgresRouteStats(storage.pool, storage.schema).routeTraffic({
        accountId: account.id,
        routeRef: 'rt_1@2',
        since: 0,
        until: 5000,
        limit: 10,
      });
      expect(traffic.map((t) => [t.messageId, t.status, t.cost, t.stepCosts])).toEqual([
        [b, 'processing', 80000, [30000, 50000]],
        [a, 'delivered', 80000, [30000, 50000]],
      ]);
      expect(traffic[1]?.history.map((h) => `${h.step}:${h.status}`)).toEqual(['0:Sent', '0:Failed', '1:Sent', '1:Delivered']);
      expect(traffic[1]?.history[1]).toEqual({ step: 0, status: 'Failed', at: 1200, error: 'undeliverable: gone' });
    } finally {
      await storage.close();
    }
  });
});
