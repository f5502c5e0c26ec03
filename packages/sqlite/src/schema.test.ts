import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MESSAGE_FOREIGN_KEYS_DROPPED, ORGANIZATION_IDS_KEPT, SCHEMA_VERSION, WALLET_COUNTERPARTS_ADDED, migrate } from './schema.ts';

const REBUILT = ['messages', 'wallet_transactions', 'history'] as const;

function open(): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  return db;
}

/** Columns (name, type, not null, default, primary key) and indexes (name, SQL) of a table. */
function shapeOf(db: Database.Database, table: string) {
  return {
    columns: db.pragma(`table_info(${table})`),
    indexes: db
      .prepare<[string], { name: string; sql: string }>(
        `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`,
      )
      .all(table),
  };
}

function seed(db: Database.Database): void {
  db.exec(`
    INSERT INTO accounts (id, login, name, password_hash, currency, balance, created_at) VALUES (1, 'a', 'A', 'x', 'EUR', 900, 1);
    INSERT INTO message_lists (id, account_id, created_at) VALUES (7, 1, 2);
    INSERT INTO messages (id, list_id, account_id, kind, customer_message_id, content, steps, status, snapshot, created_at,
        updated_at, due_at, cost, version, work, wake_at, lease_until, lease_owner, charged)
      VALUES (41, 7, 1, 'message', 'c-1', '{"a":1}', '[]', 'processing', '{}', 3, 4, 5, 100, 2, '[{"kind":"send"}]', 5, 9, 'w1', 1);
    INSERT INTO wallet_transactions (id, account_id, kind, amount, balance_after, message_id, description, created_at)
      VALUES (3, 1, 'charge', -100, 900, 41, 'message', 3);
    INSERT INTO history (seq, message_id, step, channel, status, at, error, driver, provider_message_id)
      VALUES (12, 41, 0, 'sms', 'Sent', 6, NULL, 'sim', 'p-1');
  `);
}

describe('migration: per-message rows without foreign keys', () => {
  it('leaves messages, wallet_transactions and history without foreign keys, other tables keep theirs', () => {
    const db = open();
    migrate(db);
    for (const table of REBUILT) expect(db.pragma(`foreign_key_list(${table})`)).toEqual([]);
    expect(db.pragma('foreign_key_list(message_lists)')).not.toEqual([]);
    expect(db.pragma('foreign_key_list(api_keys)')).not.toEqual([]);
  });

  it('keeps the rows, ids, columns and indexes of a database of the schema before it', () => {
    const db = open();
    migrate(db, MESSAGE_FOREIGN_KEYS_DROPPED - 1);
    seed(db);
    const before = Object.fromEntries(REBUILT.map((t) => [t, { shape: shapeOf(db, t), rows: db.prepare(`SELECT * FROM ${t}`).all() }]));
    expect(db.pragma('foreign_key_list(messages)')).not.toEqual([]);

    // Up to the rebuild: later versions change these tables' columns again.
    migrate(db, MESSAGE_FOREIGN_KEYS_DROPPED);
    expect(db.pragma('user_version', { simple: true })).toBe(MESSAGE_FOREIGN_KEYS_DROPPED);
    for (const table of REBUILT) {
      expect(db.prepare(`SELECT * FROM ${table}`).all()).toEqual(before[table]!.rows);
      expect(shapeOf(db, table)).toEqual(before[table]!.shape);
    }
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // New rows take ids after the kept ones.
    const id = db
      .prepare(`INSERT INTO history (message_id, step, channel, status, at) VALUES (41, 1, 'sms', 'Delivered', 7)`)
      .run().lastInsertRowid;
    expect(id).toBe(13);
  });

  it('is applied once: migrating again changes nothing', () => {
    const db = open();
    migrate(db, MESSAGE_FOREIGN_KEYS_DROPPED - 1);
    seed(db);
    migrate(db);
    migrate(db);
    expect(db.prepare('SELECT COUNT(*) AS n FROM messages').get()).toEqual({ n: 1 });
  });
});

describe('migration: organization ids are never reused', () => {
  const autoincrement = (db: Database.Database) =>
    /AUTOINCREMENT/i.test(
      db.prepare<[], { sql: string }>(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'organizations'`).get()!.sql,
    );
  const seedOrganizations = (db: Database.Database) =>
    db.exec(`
      INSERT INTO accounts (id, login, name, password_hash, currency, created_at) VALUES (1, 'a', 'A', 'x', 'EUR', 1), (2, 'b', 'B', 'x', 'EUR', 1);
      INSERT INTO organizations (id, account_id, name, tax_id, address, email, phone, created_at)
        VALUES (3, 1, 'Org 3', '7700000003', 'Main st 1', 'a@example.com', '79990000001', 10),
               (6, 2, 'Org 6', '7700000006', NULL, NULL, NULL, 11);
    `);

  it('rebuilds organizations with AUTOINCREMENT, keeping rows, ids, columns, the unique tax id and the account foreign key', () => {
    const db = open();
    migrate(db, ORGANIZATION_IDS_KEPT - 1);
    seedOrganizations(db);
    expect(autoincrement(db)).toBe(false);
    const before = { shape: shapeOf(db, 'organizations'), rows: db.prepare('SELECT * FROM organizations ORDER BY id').all() };
    const foreignKeys = db.pragma('foreign_key_list(organizations)');
    const uniques = db.pragma('index_list(organizations)');

    migrate(db);
    expect(autoincrement(db)).toBe(true);
    expect(db.prepare('SELECT * FROM organizations ORDER BY id').all()).toEqual(before.rows);
    expect(shapeOf(db, 'organizations')).toEqual(before.shape);
    expect(db.pragma('foreign_key_list(organizations)')).toEqual(foreignKeys);
    expect(db.pragma('index_list(organizations)')).toEqual(uniques);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // The tax id stays unique per account.
    expect(() => db.exec(`INSERT INTO organizations (account_id, name, tax_id, created_at) VALUES (1, 'Dup', '7700000003', 12)`)).toThrow(
      /UNIQUE/,
    );

    // The newest is deleted: the next one does not take its id.
    db.exec('DELETE FROM organizations WHERE id = 6');
    const insert = db.prepare(`INSERT INTO organizations (account_id, name, tax_id, created_at) VALUES (1, 'New', ?, 13)`);
    expect(insert.run('7700000007').lastInsertRowid).toBe(7);
  });

  it('is applied once: migrating again changes nothing', () => {
    const db = open();
    migrate(db, ORGANIZATION_IDS_KEPT - 1);
    seedOrganizations(db);
    migrate(db);
    migrate(db);
    expect(db.prepare('SELECT id FROM organizations ORDER BY id').all()).toEqual([{ id: 3 }, { id: 6 }]);
  });
});

describe('migration: wallet rows name the other account of a move', () => {
  it('adds counterpart_account_id, null in the rows written before, and keeps them', () => {
    const db = open();
    migrate(db, WALLET_COUNTERPARTS_ADDED - 1);
    seed(db);
    const before = db.prepare('SELECT * FROM wallet_transactions').all();
    migrate(db);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.prepare('SELECT * FROM wallet_transactions').all()).toEqual(
      before.map((r) => ({ ...(r as object), counterpart_account_id: null })),
    );
    db.exec(`INSERT INTO wallet_transactions (account_id, kind, amount, balance_after, message_id, description, counterpart_account_id, created_at)
      VALUES (1, 'adjustment', -5, 895, NULL, 'to 2', 2, 9)`);
    expect(db.prepare('SELECT counterpart_account_id FROM wallet_transactions ORDER BY id').all()).toEqual([
      { counterpart_account_id: null },
      { counterpart_account_id: 2 },
    ]);
  });
});
