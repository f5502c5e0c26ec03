import { afterAll, beforeAll } from 'vitest';
import { createPostgresStorage } from '@spillway/postgres';
// The lock PostgreSQL migrations take (not part of the package's API).
import { MIGRATION_LOCK } from '../../packages/postgres/src/schema.ts';
import { startServer } from './server-fixture.ts';
import type { RunningFixture } from './server-fixture.ts';

/**
 * The database an HTTP or server test runs on: SQLite, or, with SPILLWAY_TEST_STORAGE=postgres and
 * DATABASE_URL, PostgreSQL in a schema of the test's own (CI's PostgreSQL suite runs these files so).
 */
export interface TestDatabase {
  /** The PostgreSQL URL, or undefined on SQLite. */
  url: string | undefined;
  /** The schema on PostgreSQL. */
  schema: string;
  /** `PostgreSQL` or `SQLite`, for the suite's name. */
  label: string;
  /** The server's environment for it (`DATABASE_URL`, `SPILLWAY_PG_SCHEMA`); none on SQLite. */
  env: Record<string, string>;
  /** Drops the schema (nothing on SQLite). */
  drop(): Promise<void>;
}

/** A {@link TestDatabase}; `name` goes into the schema's name. */
export function testDatabase(name: string): TestDatabase {
  const url = process.env['SPILLWAY_TEST_STORAGE'] === 'postgres' ? process.env['DATABASE_URL'] : undefined;
  const schema = `spillway_${name}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  return {
    url,
    schema,
    label: url ? 'PostgreSQL' : 'SQLite',
    env: url ? { DATABASE_URL: url, SPILLWAY_PG_SCHEMA: schema } : {},
    async drop() {
      if (!url) return;
      const pg = createPostgresStorage({ connectionString: url, schema });
      await pg.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pg.close();
    },
  };
}

/**
 * The reference server on a {@link testDatabase} (and `env`) for the tests of one file: started before them,
 * closed after them with its schema dropped. The answer stands for the running server
 * (`call`, `url`, `server`) from the first test on.
 */
export function serverOnTestDatabase(name: string, env: Record<string, string> = {}): RunningFixture & { database: TestDatabase } {
  const database = testDatabase(name);
  let running: RunningFixture | undefined;
  beforeAll(async () => {
    running = await startServer({ ...database.env, ...env });
  });
  afterAll(async () => {
    await running?.close();
    await database.drop();
  });
  const started = (): RunningFixture => {
    if (!running) throw new Error('the server starts before the first test');
    return running;
  };
  return {
    database,
    get server() {
      return started().server;
    },
    get url() {
      return started().url;
    },
    call: (path, init) => started().call(path, init),
    close: () => started().close(),
  };
}

/**
 * Holds the migration lock of `database`'s schema (PostgreSQL) from a connection of its own, as
 * another process's migration would: a start there waits. The lock goes with the answer's
 * `release()`, or with the cleanups it adds to `cleanups` (run last-first).
 */
export async function holdMigrationLock(
  database: TestDatabase,
  cleanups: Array<() => Promise<unknown> | unknown>,
): Promise<{ release(): Promise<void>; waited(): Promise<void> }> {
  const other = createPostgresStorage({ connectionString: database.url, schema: database.schema });
  cleanups.push(() => other.close());
  const holder = await other.pool.connect();
  cleanups.push(() => holder.release());
  let held = true;
  const release = async () => {
    if (!held) return;
    held = false;
    await holder.query('ROLLBACK');
  };
  cleanups.push(release);
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, database.schema]);
  /** Resolves once another connection waits for the lock (a start got as far as its migrations). */
  const waited = async () => {
    for (let i = 0; i < 400; i++) {
      const { rows } = await other.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
           AND classid = $1::bigint::oid AND objid = ((hashtext($2)::bigint + 4294967296) % 4294967296)::oid`,
        [MIGRATION_LOCK, database.schema],
      );
      if (rows[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`nothing waited for the migration lock of ${database.schema} in 20 s`);
  };
  return { release, waited };
}
