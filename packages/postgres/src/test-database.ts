import pg from 'pg';
import { createPostgresStorage, type PostgresStorage } from './postgres-storage.ts';

/**
 * Test helper: storages in fresh, randomly named schemas of the database named by
 * `DATABASE_URL`, so that runs (and parallel test files) never see each other's rows.
 */
export interface TestDatabase {
  readonly url: string;
  /** A migrated storage in a new schema over the shared pool; its `close()` drops the schema. */
  storage(): Promise<PostgresStorage>;
  /** A new, unused schema name (created by the first `migrate()` in it). */
  schemaName(): string;
  /** Drops a schema and everything in it. */
  drop(schema: string): Promise<void>;
  /** Drops every schema still left and closes the shared pool. */
  end(): Promise<void>;
}

export function createTestDatabase(url: string): TestDatabase {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const schemas = new Set<string>();
  const schemaName = () => {
    const name = `spillway_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
    schemas.add(name);
    return name;
  };
  const drop = async (schema: string) => {
    schemas.delete(schema);
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  };
  return {
    url,
    schemaName,
    drop,
    async storage() {
      const schema = schemaName();
      const storage = createPostgresStorage({ pool, schema });
      await storage.migrate();
      return {
        ...storage,
        async close() {
          await storage.close();
          await drop(schema);
        },
      };
    },
    async end() {
      for (const schema of [...schemas]) await drop(schema);
      await pool.end();
    },
  };
}

/**
 * Test helper: lends out every connection `pool` may open (as requests waiting on a lock would
 * hold them), for a test of what waits for one; `cleanups` gets their release. A connection
 * slower to open than the pool's `connectionTimeoutMillis` (a loaded machine) is asked for again.
 */
export async function holdEveryConnection(pool: pg.Pool, cleanups: Array<() => unknown>): Promise<pg.PoolClient[]> {
  const held: pg.PoolClient[] = [];
  cleanups.push(() => held.forEach((client) => client.release()));
  while (held.length < pool.options.max) {
    await pool.connect().then(
      (client) => void held.push(client),
      () => undefined,
    );
  }
  return held;
}
