import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStorage } from './postgres-storage.ts';
import { createTestDatabase } from './test-database.ts';

// Needs a PostgreSQL server: DATABASE_URL=postgres://...
const url = process.env.DATABASE_URL;

describe.skipIf(!url)('a dropped PostgreSQL connection', () => {
  const db = createTestDatabase(url!);
  afterAll(() => db.end());

  /** Ends, from another connection, every connection of this storage's pool (`application_name`). */
  async function terminate(name: string): Promise<number> {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const res = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
      return res.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  // Regression: node-postgres emitted the error where nobody listened, and the process exited
  // (a database restart, failover or idle_session_timeout ended every engine process at once).
  it('is told to onConnectionError and replaced, idle or lent out, and the storage goes on', async () => {
    const name = `spillway-drop-${Math.random().toString(36).slice(2, 10)}`;
    const pool = new pg.Pool({ connectionString: url, application_name: name, max: 4 });
    const told: string[] = [];
    const storage = createPostgresStorage({ pool, schema: db.schemaName(), onConnectionError: (e) => void told.push(e.message) });
    await storage.migrate();
    try {
      // Idle connections in the pool.
      await Promise.all([1, 2, 3].map(() => pool.query('SELECT 1')));
      // And one lent out, between two queries.
      const lent = await pool.connect();
      await lent.query('SELECT 1');
      const ended = await terminate(name);
      expect(ended).toBeGreaterThanOrEqual(2);
      // Every connection ended is told (each hears of it in its own time), and only then is no
      // ended one left in the pool to be lent to the query below.
      await expect.poll(() => told.length).toBeGreaterThanOrEqual(ended);
      expect(told.every((m) => /terminat/i.test(m))).toBe(true);
      lent.release(true);
      // New connections serve the storage. An ended connection whose end the pool has not heard
      // yet may fail one query more (an idle one can be told twice, by the pool and by itself, so
      // the count above does not say every one was heard): what counts is that queries go on.
      await expect
        .poll(() =>
          storage.findAccountByLogin('nobody').then(
            (found) => (found === null ? 'served' : 'found'),
            (e: Error) => e.message,
          ),
        )
        .toBe('served');
    } finally {
      await storage.close();
      await pool.end();
    }
  });
});
