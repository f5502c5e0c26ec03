import { CLASHING_LOGINS, CLASHING_LOGINS_WARNING, expectKeptLoginClashes } from '@spillway/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOGIN_KEYS_ADDED } from './schema.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

// These need a PostgreSQL server: run them with DATABASE_URL=postgres://... set.
const url = process.env.DATABASE_URL;

describe.skipIf(!url)('migration: logins one regardless of case (postgres)', () => {
  let db: TestDatabase;
  beforeAll(() => {
    db = createTestDatabase(url!);
  });
  afterAll(async () => {
    await db.end();
  });

  // A database of the schema before it may hold logins that differ only by case: the migration
  // must not fail on them (a unique index on lower(login) would), nor make any of them unreachable.
  it('keeps logins that differ only by case, each found by its exact spelling, another spelling finding the oldest, and warns of them once', async () => {
    const storage = await db.storage();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const s = storage.schema;
      // The schema as the version before: no login keys, and logins that differ only by case.
      await storage.pool.query(`DROP INDEX ${s}.accounts_login_key_unique; ALTER TABLE ${s}.accounts DROP COLUMN login_key`);
      await storage.pool.query(`DELETE FROM ${s}.spillway_migrations WHERE version = $1`, [LOGIN_KEYS_ADDED]);
      for (const [id, login] of CLASHING_LOGINS) {
        await storage.pool.query(
          `INSERT INTO ${s}.accounts (id, login, name, password_hash, currency, created_at) VALUES ($1, $2, 'N', 'h', 'EUR', 1)`,
          [id, login],
        );
      }
      await storage.pool.query(`SELECT setval(pg_get_serial_sequence('${s}.accounts', 'id'), (SELECT max(id) FROM ${s}.accounts))`);

      await storage.migrate();
      await storage.migrate();

      await expectKeptLoginClashes(storage);
      expect(warn.mock.calls).toEqual([[CLASHING_LOGINS_WARNING]]);
    } finally {
      warn.mockRestore();
      await storage.close();
    }
  });
});
