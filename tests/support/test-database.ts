import { createPostgresStorage } from '@spillway/postgres';

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
