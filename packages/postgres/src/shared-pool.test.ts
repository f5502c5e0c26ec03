import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStorage } from './postgres-storage.ts';

// Needs a PostgreSQL server: DATABASE_URL=postgres://...
const url = process.env.DATABASE_URL;

describe.skipIf(!url)('storages over one pool of the caller', () => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => pool.end());

  it('listen to the pool and its connections once, tell each open storage of a dropped connection, and stop at close', async () => {
    const errorsBefore = pool.listenerCount('error');
    const connectsBefore = pool.listenerCount('connect');
    const told: number[] = [];
    const storages = Array.from({ length: 12 }, (_, i) => createPostgresStorage({ pool, onConnectionError: () => told.push(i) }));
    // Twelve storages (the test helpers' schemas, an embedder's tenants) add one listener, not twelve.
    expect(pool.listenerCount('error')).toBe(errorsBefore + 1);
    expect(pool.listenerCount('connect')).toBe(connectsBefore + 1);

    const client = await pool.connect();
    try {
      const alone = new pg.Client({ connectionString: url });
      // A lent connection carries pg's own listeners and one of the storages'.
      expect(client.listenerCount('error')).toBe(alone.listenerCount('error') + 1);
      client.emit('error', new Error('terminated by the administrator'));
      expect(told).toEqual(storages.map((_, i) => i));

      // Closed storages (the pool is the caller's: it stays open) are told nothing more.
      await Promise.all(storages.slice(0, 11).map((s) => s.close()));
      told.length = 0;
      pool.emit('error', new Error('an idle connection ended'), client);
      expect(told).toEqual([11]);
      await storages[11]!.close();
      told.length = 0;
      client.emit('error', new Error('and another'));
      expect(told).toEqual([]);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release(true);
    }
  });
});
