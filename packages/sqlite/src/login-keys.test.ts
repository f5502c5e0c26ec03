import Database from 'better-sqlite3';
import { CLASHING_LOGINS, CLASHING_LOGINS_WARNING, expectKeptLoginClashes } from '@spillway/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOGIN_KEYS_ADDED, migrate } from './schema.ts';
import { createSqliteStorage } from './sqlite-storage.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('migration: logins one regardless of case', () => {
  // A database of the schema before it may hold logins that differ only by case: the migration
  // must not fail on them (a unique index on lower(login) would), nor make any of them unreachable.
  it('keeps logins that differ only by case, each found by its exact spelling, another spelling finding the oldest, and warns of them once', async () => {
    const db = new Database(':memory:');
    migrate(db, LOGIN_KEYS_ADDED - 1);
    const insert = db.prepare<[number, string]>(
      `INSERT INTO accounts (id, login, name, password_hash, currency, created_at) VALUES (?, ?, 'N', 'h', 'EUR', 1)`,
    );
    for (const [id, login] of CLASHING_LOGINS) insert.run(id, login);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});

    migrate(db);
    const storage = createSqliteStorage({ database: db });
    await storage.migrate();

    await expectKeptLoginClashes(storage);
    expect(warn.mock.calls).toEqual([[CLASHING_LOGINS_WARNING]]);
    await storage.close();
    db.close();
  });

  it('warns of nothing on a database without such logins', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const db = new Database(':memory:');
    migrate(db, LOGIN_KEYS_ADDED - 1);
    db.exec(`INSERT INTO accounts (login, name, password_hash, currency, created_at) VALUES ('Shop', 'N', 'h', 'EUR', 1)`);
    migrate(db);
    expect(db.prepare('SELECT login, login_key FROM accounts').all()).toEqual([{ login: 'Shop', login_key: 'shop' }]);
    expect(warn).not.toHaveBeenCalled();
    db.close();
  });
});
